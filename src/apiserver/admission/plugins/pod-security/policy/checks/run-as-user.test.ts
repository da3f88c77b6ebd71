import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { runAsUser_1_23 } from './run-as-user.js';

describe('runAsUser check', () => {
  it('allows unset and non-zero', () => {
    assert.equal(run(runAsUser_1_23, specWith([container('a', { runAsUser: 1000 }), container('b')], { securityContext: { runAsUser: 1 } })).allowed, true);
  });
  it('forbids 0 on the pod and containers', () => {
    assert.deepEqual(run(runAsUser_1_23, specWith([container('a', { runAsUser: 0 })], { securityContext: { runAsUser: 0 } })), {
      allowed: false,
      forbiddenReason: 'runAsUser=0',
      forbiddenDetail: 'pod and container "a" must not set runAsUser=0',
    });
    assert.equal(run(runAsUser_1_23, specWith([container('a')], { securityContext: { runAsUser: 0 } })).forbiddenDetail, 'pod must not set runAsUser=0');
  });
});
