import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanJsonText } from './json-text-scan.js';

describe('scanJsonText', () => {
  it('counts every key written, duplicates included, and not strings that are values', () => {
    assert.equal(scanJsonText('{"a":1,"a":2,"b":["x","y:"],"c":{"d" : "e"}}').keys, 5);
    assert.equal(scanJsonText('["a","b"]').keys, 0);
    assert.equal(scanJsonText('{"q\\"uote\\\\":"v\\":"}').keys, 1);
  });

  it('says whether every number is a plain integer a double holds exactly', () => {
    assert.equal(scanJsonText('{"a":-12,"b":[0,123456789012345],"s":"1.5e3"}').plainIntegers, true);
    for (const text of ['{"a":1.0}', '[1e3]', '[1E3]', '[-0.5]', '[1234567890123456]']) assert.equal(scanJsonText(text).plainIntegers, false, text);
  });

  it('measures the deepest nesting', () => {
    assert.equal(scanJsonText('1').depth, 0);
    assert.equal(scanJsonText('{"a":[{"b":[]}],"c":{}}').depth, 4);
    assert.equal(scanJsonText(`${'['.repeat(2000)}${']'.repeat(2000)}`).depth, 2000);
  });
});
