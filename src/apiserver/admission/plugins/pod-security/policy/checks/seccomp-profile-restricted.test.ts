import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { seccompProfileRestricted_1_19, seccompProfileRestricted_1_25 } from './seccomp-profile-restricted.js';

describe('seccompProfile_restricted check', () => {
  it('allows a pod-level profile, or one on every container', () => {
    assert.equal(run(seccompProfileRestricted_1_19, specWith([container('a')], { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } })).allowed, true);
    assert.equal(run(seccompProfileRestricted_1_19, specWith([container('a', { seccompProfile: { type: 'Localhost' } })])).allowed, true);
  });
  it('requires a profile where none is set', () => {
    const spec = specWith([container('a'), container('b', { seccompProfile: { type: 'RuntimeDefault' } }), container('c')]);
    assert.deepEqual(run(seccompProfileRestricted_1_19, spec), {
      allowed: false,
      forbiddenReason: 'seccompProfile',
      forbiddenDetail: 'pod or containers "a", "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    });
  });
  it('reports explicit bad values before missing ones', () => {
    const spec = specWith([container('a', { seccompProfile: { type: 'Unconfined' } }), container('b')]);
    assert.equal(run(seccompProfileRestricted_1_19, spec).forbiddenDetail, 'container "a" must not set securityContext.seccompProfile.type to "Unconfined"');
    const pod = specWith([container('a')], { securityContext: { seccompProfile: { type: 'Unconfined' } } });
    assert.equal(run(seccompProfileRestricted_1_19, pod).forbiddenDetail, 'pod must not set securityContext.seccompProfile.type to "Unconfined"');
  });
  it('exempts Windows pods from v1.25', () => {
    const spec = specWith([container('a')], { os: { name: 'windows' } });
    assert.equal(run(seccompProfileRestricted_1_25, spec).allowed, true);
    assert.equal(run(seccompProfileRestricted_1_19, spec).allowed, false);
  });
});
