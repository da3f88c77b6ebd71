import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { capabilitiesRestricted_1_22, capabilitiesRestricted_1_25 } from './capabilities-restricted.js';

describe('capabilities_restricted check', () => {
  it('allows drop ALL with NET_BIND_SERVICE added', () => {
    assert.equal(run(capabilitiesRestricted_1_22, specWith([container('a', { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } })])).allowed, true);
  });
  it('requires drop ALL of containers without capabilities or without ALL', () => {
    const spec = specWith([container('a'), container('b', { capabilities: { drop: ['NET_RAW'] } }), container('c', { capabilities: { drop: ['ALL'] } })]);
    assert.deepEqual(run(capabilitiesRestricted_1_22, spec), {
      allowed: false,
      forbiddenReason: 'unrestricted capabilities',
      forbiddenDetail: 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]',
    });
  });
  it('forbids adding anything but NET_BIND_SERVICE, joined with the drop detail by "; "', () => {
    const spec = specWith([container('a', { capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE'] } }), container('b', { capabilities: { drop: ['ALL'], add: ['SYS_ADMIN', 'CHOWN'] } })]);
    assert.equal(
      run(capabilitiesRestricted_1_22, spec).forbiddenDetail,
      'container "a" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b" must not include "CHOWN", "SYS_ADMIN" in securityContext.capabilities.add',
    );
  });
  it('exempts Windows pods from v1.25 only', () => {
    const spec = specWith([container('a')], { os: { name: 'windows' } });
    assert.equal(run(capabilitiesRestricted_1_25, spec).allowed, true);
    assert.equal(run(capabilitiesRestricted_1_22, spec).allowed, false);
    assert.equal(run(capabilitiesRestricted_1_25, specWith([container('a')], { os: { name: 'linux' } })).allowed, false);
  });
});
