import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { procMount_1_0 } from './proc-mount.js';

describe('procMount check', () => {
  it('allows unset and Default', () => {
    assert.equal(run(procMount_1_0, specWith([container('a'), container('b', { procMount: 'Default' })])).allowed, true);
  });
  it('forbids Unmasked', () => {
    assert.deepEqual(run(procMount_1_0, specWith([container('a', { procMount: 'Unmasked' }), container('b', { procMount: 'Unmasked' })])), {
      allowed: false,
      forbiddenReason: 'procMount',
      forbiddenDetail: 'containers "a", "b" must not set securityContext.procMount to "Unmasked"',
    });
  });
  it('is not relaxed for user-namespace pods (the gate is off in 1.33)', () => {
    assert.equal(run(procMount_1_0, specWith([container('a', { procMount: 'Unmasked' })], { hostUsers: false })).allowed, false);
  });
});
