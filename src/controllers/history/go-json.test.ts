import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goSortedJson } from './go-json.js';

describe('goSortedJson', () => {
  it('sorts keys at every level and writes no spaces', () => {
    assert.equal(goSortedJson({ b: { d: 1, c: [true, null] }, a: 'x' }), '{"a":"x","b":{"c":[true,null],"d":1}}');
  });

  it('escapes as Go does: HTML characters, line separators, control characters', () => {
    assert.equal(goSortedJson('<a&b>'), '"\\u003ca\\u0026b\\u003e"');
    assert.equal(goSortedJson('\u2028\u2029'), '"\\u2028\\u2029"');
    assert.equal(goSortedJson('q"\\\n\t\r\b\f\u0001'), '"q\\"\\\\\\n\\t\\r\\b\\f\\u0001"');
    assert.equal(goSortedJson('é✓'), '"é✓"');
  });

  it('drops undefined members, writes non-finite numbers as null, rejects functions', () => {
    assert.equal(goSortedJson({ a: undefined, b: 2.5, c: Number.NaN }), '{"b":2.5,"c":null}');
    assert.equal(goSortedJson(undefined), 'null');
    assert.throws(() => goSortedJson(() => 1), TypeError);
  });
});
