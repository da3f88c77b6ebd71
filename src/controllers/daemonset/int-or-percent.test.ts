import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scaledValue } from './int-or-percent.js';

describe('scaledValue', () => {
  it('takes numbers as they are and scales percentages, rounding as asked', () => {
    assert.equal(scaledValue(3, 10, true), 3);
    assert.equal(scaledValue(undefined, 10, true), 0);
    assert.equal(scaledValue('25%', 10, true), 3);
    assert.equal(scaledValue('25%', 10, false), 2);
    assert.equal(scaledValue('0%', 10, true), 0);
  });

  it('rejects a string that is not a percentage', () => {
    assert.throws(() => scaledValue('three', 10, true), /is not a percentage/);
    assert.throws(() => scaledValue('-5%', 10, true), /is not a percentage/);
  });
});
