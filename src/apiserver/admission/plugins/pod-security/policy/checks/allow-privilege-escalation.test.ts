import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { allowPrivilegeEscalation_1_25, allowPrivilegeEscalation_1_8 } from './allow-privilege-escalation.js';

describe('allowPrivilegeEscalation check', () => {
  it('allows false', () => {
    assert.equal(run(allowPrivilegeEscalation_1_8, specWith([container('a', { allowPrivilegeEscalation: false })])).allowed, true);
  });
  it('forbids unset, null and true', () => {
    const spec = specWith([container('a'), container('b', { allowPrivilegeEscalation: null }), container('c', { allowPrivilegeEscalation: true }), container('d', { allowPrivilegeEscalation: false })]);
    assert.deepEqual(run(allowPrivilegeEscalation_1_8, spec), {
      allowed: false,
      forbiddenReason: 'allowPrivilegeEscalation != false',
      forbiddenDetail: 'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
    });
  });
  it('exempts Windows pods from v1.25', () => {
    const spec = specWith([container('a')], { os: { name: 'windows' } });
    assert.equal(run(allowPrivilegeEscalation_1_25, spec).allowed, true);
    assert.equal(run(allowPrivilegeEscalation_1_8, spec).forbiddenDetail, 'container "a" must set securityContext.allowPrivilegeEscalation=false');
  });
});
