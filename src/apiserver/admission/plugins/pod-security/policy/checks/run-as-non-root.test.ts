import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { runAsNonRoot_1_0 } from './run-as-non-root.js';

describe('runAsNonRoot check', () => {
  it('allows true on the pod or on every container', () => {
    assert.equal(run(runAsNonRoot_1_0, specWith([container('a')], { securityContext: { runAsNonRoot: true } })).allowed, true);
    assert.equal(run(runAsNonRoot_1_0, specWith([container('a', { runAsNonRoot: true })])).allowed, true);
  });
  it('requires it where unset', () => {
    assert.deepEqual(run(runAsNonRoot_1_0, specWith([container('a'), container('b', { runAsNonRoot: true }), container('c')])), {
      allowed: false,
      forbiddenReason: 'runAsNonRoot != true',
      forbiddenDetail: 'pod or containers "a", "c" must set securityContext.runAsNonRoot=true',
    });
  });
  it('forbids an explicit false, even under a pod-level true', () => {
    const spec = specWith([container('a', { runAsNonRoot: false })], { securityContext: { runAsNonRoot: true } });
    assert.equal(run(runAsNonRoot_1_0, spec).forbiddenDetail, 'container "a" must not set securityContext.runAsNonRoot=false');
    const pod = specWith([container('a', { runAsNonRoot: false }), container('b', { runAsNonRoot: false })], { securityContext: { runAsNonRoot: false } });
    assert.equal(run(runAsNonRoot_1_0, pod).forbiddenDetail, 'pod and containers "a", "b" must not set securityContext.runAsNonRoot=false');
  });
});
