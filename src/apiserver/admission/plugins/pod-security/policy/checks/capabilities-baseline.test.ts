import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { capabilitiesBaseline_1_0 } from './capabilities-baseline.js';

describe('capabilities_baseline check', () => {
  it('allows the default set and dropping anything', () => {
    const spec = specWith([container('a', { capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE', 'SYS_CHROOT'], drop: ['ALL'] } }), container('b')]);
    assert.equal(run(capabilitiesBaseline_1_0, spec).allowed, true);
  });
  it('names the containers and the sorted, distinct capabilities', () => {
    const spec = specWith([
      container('a', { capabilities: { add: ['SYS_ADMIN', 'CHOWN', 'NET_RAW'] } }),
      container('b', { capabilities: { add: ['NET_RAW'] } }),
      container('c', { capabilities: { add: ['KILL'] } }),
    ]);
    assert.deepEqual(run(capabilitiesBaseline_1_0, spec), {
      allowed: false,
      forbiddenReason: 'non-default capabilities',
      forbiddenDetail: 'containers "a", "b" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
    });
  });
  it('singular for one container', () => {
    const spec = specWith([container('a', { capabilities: { add: ['NET_ADMIN'] } })]);
    assert.equal(run(capabilitiesBaseline_1_0, spec).forbiddenDetail, 'container "a" must not include "NET_ADMIN" in securityContext.capabilities.add');
  });
});
