import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, computeTemplateHash, fnv32a, safeEncodeString } from './hash.js';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };

describe('pod-template-hash', () => {
  it('FNV-32a matches the reference vectors', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    assert.equal(fnv32a(enc('')), 0x811c9dc5);
    assert.equal(fnv32a(enc('a')), 0xe40c292c);
    assert.equal(fnv32a(enc('foobar')), 0xbf9cf968);
  });

  it('SafeEncodeString maps each character onto the vowel-free alphabet', () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf', 'digits: the characters real pod-template-hashes are made of');
    assert.equal(safeEncodeString('ab'), 'vw');
  });

  it('canonical JSON sorts keys at every level and drops undefined', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined }], c: null } }), '{"a":{"c":null,"d":[1,{"z":1}]},"b":1}');
  });

  it('is stable across key order and changes with the template or the collision count', () => {
    const reordered = { spec: { containers: [{ image: 'nginx:1', name: 'c' }] }, metadata: { labels: { app: 'web' } } };
    const h = computeTemplateHash(template);
    assert.equal(computeTemplateHash(reordered), h);
    assert.match(h, /^[456789bcdf]{1,10}$/);
    assert.notEqual(computeTemplateHash({ ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }), h);
    assert.notEqual(computeTemplateHash(template, 1), computeTemplateHash(template, 2));
    assert.notEqual(computeTemplateHash(template, 0), h);
    assert.equal(computeTemplateHash(template, 3), computeTemplateHash(reordered, 3));
  });
});
