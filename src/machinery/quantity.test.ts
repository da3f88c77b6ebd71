import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quantityMilliValue, quantityValue } from './quantity.js';

describe('quantityMilliValue', () => {
  it('counts thousandths, rounding up as upstream MilliValue does', () => {
    const cases: Array<[string, number]> = [['100m', 100], ['1', 1000], ['2.5', 2500], ['0.0001', 1], ['1k', 1_000_000], ['0', 0], ['1e-3', 1]];
    for (const [text, expected] of cases) assert.equal(quantityMilliValue(text), expected, text);
  });
  it('gives undefined for text that is no quantity', () => {
    assert.equal(quantityMilliValue('one cpu'), undefined);
    assert.equal(quantityMilliValue(''), undefined);
  });
});

describe('quantityValue', () => {
  it('counts whole units, rounding up as upstream Value does', () => {
    const cases: Array<[string, number]> = [['1Gi', 1073741824], ['128Mi', 134217728], ['1G', 1e9], ['500m', 1], ['110', 110], ['1.5Ki', 1536], ['-1', -1]];
    for (const [text, expected] of cases) assert.equal(quantityValue(text), expected, text);
  });
  it('gives undefined for text that is no quantity', () => {
    assert.equal(quantityValue('12 apples'), undefined);
  });
});
