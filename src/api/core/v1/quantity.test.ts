import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isQuantity, parseQuantityNanos } from './quantity.js';

describe('parseQuantityNanos', () => {
  it('reads decimal, binary and exponent suffixes in nano units, rounding finer values up', () => {
    assert.equal(parseQuantityNanos('100m'), 100_000_000n);
    assert.equal(parseQuantityNanos('64Mi'), 64n * 1024n * 1024n * 1_000_000_000n);
    assert.equal(parseQuantityNanos('1e3'), 1000n * 1_000_000_000n);
    assert.equal(parseQuantityNanos('-1.5'), -1_500_000_000n);
    assert.equal(parseQuantityNanos('0.1n'), 1n);
    assert.equal(parseQuantityNanos(2), 2_000_000_000n);
  });

  it('gives the same answer for a text read again, valid or not, and stays right past its bound of remembered readings', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(parseQuantityNanos('250m'), 250_000_000n);
      assert.equal(parseQuantityNanos('12 cores'), undefined);
      assert.equal(isQuantity('12 cores'), false);
    }
    for (let i = 0; i < 10_000; i++) assert.equal(parseQuantityNanos(`${i}k`), BigInt(i) * 1000n * 1_000_000_000n);
    assert.equal(parseQuantityNanos('250m'), 250_000_000n);
    assert.equal(parseQuantityNanos('x'), undefined);
  });
});
