import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { seccompProfileBaseline_1_0, seccompProfileBaseline_1_19 } from './seccomp-profile-baseline.js';

describe('seccompProfile_baseline check', () => {
  it('v1.19+: allows unset, RuntimeDefault and Localhost', () => {
    const spec = specWith([container('a', { seccompProfile: { type: 'Localhost' } }), container('b')], { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } });
    assert.equal(run(seccompProfileBaseline_1_19, spec).allowed, true);
  });
  it('v1.19+: forbids Unconfined on the pod and containers', () => {
    const spec = specWith([container('a', { seccompProfile: { type: 'Unconfined' } })], { securityContext: { seccompProfile: { type: 'Unconfined' } } });
    assert.deepEqual(run(seccompProfileBaseline_1_19, spec), {
      allowed: false,
      forbiddenReason: 'seccompProfile',
      forbiddenDetail: 'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
    });
  });
  it('v1.0–1.18: checks the alpha annotations instead', () => {
    const spec = specWith([container('a'), container('b')]);
    assert.equal(run(seccompProfileBaseline_1_0, spec, { 'seccomp.security.alpha.kubernetes.io/pod': 'docker/default' }).allowed, true);
    const r = run(seccompProfileBaseline_1_0, spec, {
      'seccomp.security.alpha.kubernetes.io/pod': 'unconfined',
      'container.seccomp.security.alpha.kubernetes.io/a': 'unconfined',
      'container.seccomp.security.alpha.kubernetes.io/b': 'localhost/p',
    });
    assert.deepEqual(r, {
      allowed: false,
      forbiddenReason: 'seccompProfile',
      forbiddenDetail: 'forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
    });
    assert.equal(run(seccompProfileBaseline_1_19, spec, { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' }).allowed, true);
  });
});
