import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findUntoleratedTaint, isDoNotScheduleTaint, tolerationsTolerateTaint } from './taints.js';

describe('taints', () => {
  it('finds the first untolerated NoSchedule/NoExecute taint in node order', () => {
    const taints = [
      { key: 'soft', effect: 'PreferNoSchedule' },
      { key: 'a', value: '1', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoExecute' },
    ];
    assert.deepEqual(findUntoleratedTaint(taints, []), taints[1]);
    assert.deepEqual(findUntoleratedTaint(taints, [{ key: 'a', value: '1' }]), taints[2]);
    assert.equal(findUntoleratedTaint(taints, [{ operator: 'Exists' }]), undefined);
    assert.equal(findUntoleratedTaint(undefined, []), undefined);
  });

  it('matches tolerations as upstream (effect, key, Equal/Exists)', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
    assert.equal(tolerationsTolerateTaint([{ key: 'k', value: 'v' }], taint), true);
    assert.equal(tolerationsTolerateTaint([{ key: 'k', value: 'w' }], taint), false);
    assert.equal(tolerationsTolerateTaint([{ key: 'k', operator: 'Exists', effect: 'NoExecute' }], taint), false);
    assert.equal(tolerationsTolerateTaint([{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }], taint), true);
    assert.equal(tolerationsTolerateTaint([], taint), false);
    assert.equal(isDoNotScheduleTaint({ key: 'x', effect: 'PreferNoSchedule' }), false);
  });
});
