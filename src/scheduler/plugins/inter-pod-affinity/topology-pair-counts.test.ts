import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TopologyPairCounts, TopologyValueIds } from './topology-pair-counts.js';

describe('TopologyPairCounts', () => {
  it('counts pairs, drops those back at zero, and clones independently', () => {
    const counts = new TopologyPairCounts();
    counts.add('zone', 'a', 2);
    counts.addForNode({ zone: 'b' }, 'zone', 1);
    counts.addForNode({ other: 'x' }, 'zone', 1);
    counts.addForNode(undefined, 'zone', 1);
    assert.equal(counts.size, 2);
    const copy = counts.clone();
    counts.add('zone', 'a', -2);
    assert.equal(counts.size, 1);
    assert.equal(counts.get('zone', 'a'), 0);
    assert.equal(copy.get('zone', 'a'), 2);
    assert.deepEqual(copy.entries(), [['zone', 'a', 2], ['zone', 'b', 1]]);
    assert.equal(counts.anyPositiveForNode({ zone: 'b' }), true);
    assert.equal(counts.anyPositiveForNode({ zone: 'a' }), false);
    assert.equal(counts.anyPositiveForNode(undefined), false);
    counts.add('zone', 'c', 0);
    assert.equal(counts.size, 1);
  });

  it('shares interned values between counts and grows past its initial capacity', () => {
    const ids = new TopologyValueIds();
    const a = new TopologyPairCounts(ids);
    const b = new TopologyPairCounts(ids);
    for (let i = 0; i < 40; i++) a.add('host', `n${i}`, 1);
    b.add('host', 'n39', 2);
    assert.equal(ids.size, 40);
    assert.equal(a.size, 40);
    assert.equal(a.get('host', 'n39'), 1);
    assert.equal(b.get('host', 'n39'), 2);
    assert.equal(b.get('host', 'n0'), 0);
    assert.equal(b.get('host', 'unknown'), 0);
    assert.equal(b.size, 1);
    a.add('host', 'n3', -1);
    assert.equal(a.size, 39);
  });
});
