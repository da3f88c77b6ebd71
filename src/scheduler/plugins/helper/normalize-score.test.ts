import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultNormalizeScore } from './normalize-score.js';

const scores = (...values: number[]) => values.map((score, i) => ({ name: `n${i}`, score }));

describe('defaultNormalizeScore', () => {
  it('scales to the highest, truncating as Go integer division', () => {
    const s = scores(3, 2, 0);
    defaultNormalizeScore(100, false, s);
    assert.deepEqual(s.map((x) => x.score), [100, 66, 0]);
  });

  it('reverses when asked', () => {
    const s = scores(3, 2, 0);
    defaultNormalizeScore(100, true, s);
    assert.deepEqual(s.map((x) => x.score), [0, 34, 100]);
  });

  it('leaves all zeros at zero, or at the maximum when reversed', () => {
    const plain = scores(0, 0);
    defaultNormalizeScore(100, false, plain);
    assert.deepEqual(plain.map((x) => x.score), [0, 0]);
    const reversed = scores(0, 0);
    defaultNormalizeScore(100, true, reversed);
    assert.deepEqual(reversed.map((x) => x.score), [100, 100]);
  });
});
