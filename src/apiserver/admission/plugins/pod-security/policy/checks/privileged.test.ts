import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { privileged_1_0 } from './privileged.js';

describe('privileged check', () => {
  it('allows unset and false', () => {
    assert.equal(run(privileged_1_0, specWith([container('a'), container('b', { privileged: false }), container('c', { privileged: null })])).allowed, true);
  });
  it('names one privileged container', () => {
    assert.deepEqual(run(privileged_1_0, specWith([container('a', { privileged: true })])), {
      allowed: false,
      forbiddenReason: 'privileged',
      forbiddenDetail: 'container "a" must not set securityContext.privileged=true',
    });
  });
  it('names init, regular and ephemeral containers in that order', () => {
    const spec = specWith([container('b', { privileged: true })], {
      initContainers: [container('a', { privileged: true })],
      ephemeralContainers: [container('c', { privileged: true })],
    });
    assert.equal(run(privileged_1_0, spec).forbiddenDetail, 'containers "a", "b", "c" must not set securityContext.privileged=true');
  });
});
