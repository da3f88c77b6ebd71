import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventRevision, prefixEnd } from './interface.js';

describe('prefixEnd', () => {
  it('increments the last character', () => {
    assert.equal(prefixEnd('/registry/pods/'), '/registry/pods0');
    assert.equal(prefixEnd('a'), 'b');
  });
  it('is the upper bound of every key with the prefix, in byte order', () => {
    const end = Buffer.from(prefixEnd('/p/'));
    for (const key of ['/p/', '/p/a', '/p/\u00ff', '/p/\u{10ffff}']) {
      assert.ok(Buffer.compare(Buffer.from(key), end) < 0, key);
    }
    assert.ok(Buffer.compare(Buffer.from('/p0'), end) >= 0);
  });
  it('skips the surrogate range and carries past the last code point', () => {
    assert.equal(prefixEnd('x\ud7ff'), 'x\ue000');
    assert.equal(prefixEnd('x\u{10ffff}'), 'y');
    assert.equal(prefixEnd(''), '');
  });
});

describe('eventRevision', () => {
  it('is the new modRevision of a PUT and the revision of a DELETE', () => {
    const kv = { key: 'k', value: new Uint8Array(), createRevision: 3, modRevision: 5 };
    assert.equal(eventRevision({ type: 'PUT', kv }), 5);
    assert.equal(eventRevision({ type: 'DELETE', key: 'k', revision: 9, prevKv: kv }), 9);
  });
});
