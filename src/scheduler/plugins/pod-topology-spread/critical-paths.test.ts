import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CriticalPaths } from './filtering.js';

describe('CriticalPaths', () => {
  it('keeps the minimum first as domains are added and updated', () => {
    const p = new CriticalPaths();
    p.update('a', 3);
    p.update('b', 1);
    p.update('c', 2);
    assert.deepEqual([p.value0, p.num0, p.value1, p.num1], ['b', 1, 'c', 2]);
    p.update('b', 4);
    assert.deepEqual([p.value0, p.num0, p.value1, p.num1], ['c', 2, 'b', 4]);
    p.update('c', 1);
    assert.deepEqual([p.value0, p.num0], ['c', 1]);
    const copy = p.clone();
    p.update('c', 9);
    assert.equal(copy.num0, 1);
    assert.deepEqual([p.value0, p.num0], ['b', 4]);
  });
});
