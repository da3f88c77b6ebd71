import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserializeElement, fieldElement, keyElement, serializeElement } from './path-element.js';

describe('path element keys', () => {
  it('gives a key element the same FieldsV1 key every time, and each element its own', () => {
    const a = keyElement([['name', 'web']]);
    const b = keyElement([['name', 'db']]);
    assert.equal(serializeElement(a), 'k:{"name":"web"}');
    assert.equal(serializeElement(a), 'k:{"name":"web"}');
    assert.equal(serializeElement(b), 'k:{"name":"db"}');
    assert.equal(serializeElement(fieldElement('spec')), 'f:spec');
    assert.equal(serializeElement({ value: 1.5 }), 'v:1.5');
  });

  it('decodes a key or value once and hands back an equal element for the same text', () => {
    const first = deserializeElement('k:{"port":80,"protocol":"TCP"}');
    const again = deserializeElement('k:{"port":80,"protocol":"TCP"}');
    assert.deepEqual(first, again);
    assert.deepEqual(first, keyElement([['protocol', 'TCP'], ['port', 80]]));
    // An invalid key is an error every time, not remembered as an element.
    assert.throws(() => deserializeElement('k:[1]'), /invalid key/);
    assert.throws(() => deserializeElement('k:[1]'), /invalid key/);
    assert.throws(() => deserializeElement('v:{bad'), /invalid JSON/);
  });

  it('reads field names as they are, whatever they contain', () => {
    assert.deepEqual(deserializeElement('f:a.b/c:d'), { field: 'a.b/c:d' });
    assert.equal(serializeElement(fieldElement('a.b/c:d')), 'f:a.b/c:d');
  });
});
