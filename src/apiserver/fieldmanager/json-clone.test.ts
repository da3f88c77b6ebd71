import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cloneJson } from './json-clone.js';

describe('cloneJson', () => {
  it('copies nested objects and arrays, sharing nothing', () => {
    const original = { a: [1, { b: 'x', c: null }], d: { e: true, f: 2.5 } };
    const copy = cloneJson(original);
    assert.deepEqual(copy, original);
    assert.notEqual(copy.a, original.a);
    assert.notEqual(copy.a[1], original.a[1]);
    assert.notEqual(copy.d, original.d);
  });

  it('keeps scalars, null and undefined as they are', () => {
    assert.equal(cloneJson('s'), 's');
    assert.equal(cloneJson(null), null);
    assert.equal(cloneJson(undefined), undefined);
    assert.deepEqual(Object.keys(cloneJson({ gone: undefined } as unknown as { [k: string]: null })), ['gone']);
  });

  it('keeps key order, as JSON output depends on it', () => {
    assert.deepEqual(Object.keys(cloneJson({ z: 1, a: 2, m: 3 })), ['z', 'a', 'm']);
  });
});
