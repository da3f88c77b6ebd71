import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration } from './human-duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration', () => {
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'],
    [-1999, '0s'],
    [-1 * S, '0s'],
    [-999, '0s'],
    [0, '0s'],
    [999, '0s'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [5 * M + 10 * S, '5m10s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 20 * M, '3h20m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H + 59 * M, '47h'],
    [2 * D, '2d'],
    [2 * D + 3 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 40 * D, '2y40d'],
    [7 * Y + 364 * D, '7y364d'],
    [8 * Y, '8y'],
    [12 * Y + 100 * D, '12y'],
  ];
  for (const [ms, expected] of cases) {
    it(`prints ${ms}ms as ${expected}`, () => {
      assert.equal(humanDuration(ms), expected);
    });
  }
});
