import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalQuantity } from './quantity.js';

describe('canonicalQuantity', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['0Gi', '0'],
    ['1', '1'],
    ['1000m', '1'],
    ['500m', '500m'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['100', '100'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['12e6', '12e6'],
    ['12000k', '12M'],
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['10e3', '10e3'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['2048Ki', '2Mi'],
    ['0.5Ki', '512'],
    ['1000Ki', '1000Ki'],
    ['1k', '1k'],
    ['1M', '1M'],
    ['0.1n', '1n'],
    ['-1Ki', '-1Ki'],
    ['-500m', '-500m'],
    ['2', '2'],
    ['10', '10'],
  ];
  for (const [input, expected] of cases) {
    it(`canonicalizes ${input} to ${expected}`, () => {
      assert.equal(canonicalQuantity(input), expected);
    });
  }
  it('returns text that is not a quantity unchanged', () => {
    assert.equal(canonicalQuantity('lots'), 'lots');
    assert.equal(canonicalQuantity('1Zi'), '1Zi');
  });
});
