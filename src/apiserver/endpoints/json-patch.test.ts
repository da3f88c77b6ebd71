import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyJsonPatch, type JsonPatchOperation } from './json-patch.js';

const doc = () => ({ spec: { replicas: 2, list: ['a', 'b', 'c'], gone: null }, data: { k: 'v' } });
const apply = (...ops: JsonPatchOperation[]) => applyJsonPatch(doc(), ops);
const value = (...ops: JsonPatchOperation[]) => {
  const r = apply(...ops);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.value as ReturnType<typeof doc> & Record<string, unknown>;
};
const error = (...ops: JsonPatchOperation[]) => {
  const r = apply(...ops);
  assert.ok(!r.ok, 'expected the patch to fail');
  return r.error;
};

describe('applyJsonPatch (evanphx/json-patch v4 semantics)', () => {
  it('adds, removes, replaces, moves, copies and tests', () => {
    const v = value(
      { op: 'add', path: '/spec/list/1', value: 'x' },
      { op: 'remove', path: '/data/k' },
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'move', from: '/spec/list/0', path: '/spec/first' },
      { op: 'copy', from: '/spec/first', path: '/data/first' },
      { op: 'test', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/spec/list/-', value: 'z' },
    );
    assert.deepEqual(v, { spec: { replicas: 3, list: ['x', 'b', 'c', 'z'], gone: null, first: 'a' }, data: { first: 'a' } });
  });

  it('leaves the input alone', () => {
    const input = doc();
    applyJsonPatch(input, [{ op: 'remove', path: '/data/k' }]);
    assert.deepEqual(input, doc());
  });

  it('fails to remove or move a missing member', () => {
    assert.equal(error({ op: 'remove', path: '/spec/nosuch' }), "error in remove for path: '/spec/nosuch': Unable to remove nonexistent key: nosuch: missing value");
    assert.equal(error({ op: 'move', from: '/spec/nosuch', path: '/spec/x' }), "error in move for path: 'nosuch': Unable to remove nonexistent key: nosuch: missing value");
    assert.equal(error({ op: 'remove', path: '/spec/list/3' }), "error in remove for path: '/spec/list/3': Unable to access invalid index: 3: invalid index referenced");
  });

  it('replaces a missing member of an object as an add, but not a missing path or index', () => {
    assert.equal(value({ op: 'replace', path: '/spec/nosuch', value: 5 }).spec['nosuch' as 'replicas'], 5);
    assert.equal(error({ op: 'replace', path: '/spec/nosuch/x', value: 5 }), 'replace operation does not apply: doc is missing path: /spec/nosuch/x: missing value');
    assert.equal(error({ op: 'replace', path: '/spec/list/3', value: 5 }), 'replace operation does not apply: doc is missing key: /spec/list/3: missing value');
  });

  it('fails a test that does not hold, and an unknown operation', () => {
    assert.equal(error({ op: 'test', path: '/spec/replicas', value: 5 }), 'testing value /spec/replicas failed: test failed');
    assert.equal(error({ op: 'bogus', path: '/spec/x' }), 'Unexpected kind: bogus');
    assert.equal(error({ path: '/spec/x' }), 'Unexpected kind: unknown');
    // A null member is missing, and matches a null value.
    value({ op: 'test', path: '/spec/gone', value: null }, { op: 'test', path: '/spec/absent', value: null });
  });

  it('treats a null member on the way as a missing path, and counts negative indices from the end', () => {
    assert.equal(error({ op: 'add', path: '/spec/gone/x', value: 1 }), 'add operation does not apply: doc is missing path: "/spec/gone/x": missing value');
    assert.deepEqual(value({ op: 'remove', path: '/spec/list/-1' }).spec.list, ['a', 'b']);
    assert.equal(error({ op: 'add', path: '/spec/list/5', value: 1 }), "error in add for path: '/spec/list/5': Unable to access invalid index: 5: invalid index referenced");
  });

  it('replaces the whole document with an object', () => {
    assert.deepEqual(value({ op: 'replace', path: '', value: { a: 1 } }), { a: 1 });
    assert.equal(error({ op: 'replace', path: '', value: 1 }), 'replace operation value must be object or array');
  });
});
