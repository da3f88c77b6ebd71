import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { maxSurge, maxUnavailable, resolveFenceposts, scaledValue } from './intstr.js';

const deployment = (replicas: number, surge?: number | string, unavailable?: number | string, type = 'RollingUpdate'): Deployment => ({
  spec: {
    replicas,
    selector: {},
    template: {},
    strategy: { type, ...(type === 'RollingUpdate' ? { rollingUpdate: { ...(surge !== undefined ? { maxSurge: surge } : {}), ...(unavailable !== undefined ? { maxUnavailable: unavailable } : {}) } } : {}) },
  },
});

describe('maxSurge / maxUnavailable', () => {
  it('percentages: surge rounds up, unavailable rounds down', () => {
    assert.equal(scaledValue('25%', 10, true), 3);
    assert.equal(scaledValue('25%', 10, false), 2);
    assert.equal(scaledValue(4, 10, true), 4);
    assert.deepEqual(resolveFenceposts('25%', '25%', 10), [3, 2]);
    assert.deepEqual(resolveFenceposts('25%', '25%', 1), [1, 0]);
  });

  it('both zero: unavailable becomes 1', () => {
    assert.deepEqual(resolveFenceposts(0, '10%', 5), [0, 1]);
    assert.deepEqual(resolveFenceposts(undefined, undefined, 3), [0, 1]);
  });

  it('a string that is not a percentage is an error (upstream wording)', () => {
    assert.throws(() => scaledValue('3', 10, true), /invalid value for IntOrString: invalid type: string is not a percentage/);
    assert.throws(() => scaledValue('x%', 10, true), /invalid value for IntOrString/);
  });

  it('per deployment: Recreate has none; unavailable never exceeds replicas; 0 replicas: 0', () => {
    assert.equal(maxSurge(deployment(10, '25%', '25%')), 3);
    assert.equal(maxUnavailable(deployment(10, '25%', '25%')), 2);
    assert.equal(maxSurge(deployment(10, undefined, undefined, 'Recreate')), 0);
    assert.equal(maxUnavailable(deployment(10, undefined, undefined, 'Recreate')), 0);
    assert.equal(maxUnavailable(deployment(2, 0, 5)), 2);
    assert.equal(maxUnavailable(deployment(0, 1, 1)), 0);
  });
});
