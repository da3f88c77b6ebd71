import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeHash, fnv32, fnv32a, safeEncodeString } from './hash.js';

describe('revision hashes', () => {
  it('computes FNV-1 and FNV-1a as Go does (known vectors)', () => {
    assert.equal(fnv32(''), 0x811c9dc5);
    assert.equal(fnv32a(''), 0x811c9dc5);
    assert.equal(fnv32('a'), 0x050c5d7e);
    assert.equal(fnv32a('a'), 0xe40c292c);
    assert.equal(fnv32a('foobar'), 0xbf9cf968);
    assert.equal(fnv32('foobar'), 0x31f0b262);
  });

  it('hashes parts as one stream of bytes', () => {
    assert.equal(fnv32('foo', 'bar'), fnv32('foobar'));
    assert.equal(fnv32a('fo', 'obar'), fnv32a('foobar'));
  });

  it('safe-encodes the decimal form with upstream alphabet', () => {
    // '0' is 48 → 48 % 27 = 21 → '4'; '9' is 57 → 3 → 'f'
    assert.equal(safeEncodeString('09'), '4f');
    assert.equal(encodeHash(1234), safeEncodeString('1234'));
    assert.match(encodeHash(fnv32('x')), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });
});
