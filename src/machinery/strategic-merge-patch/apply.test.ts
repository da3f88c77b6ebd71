import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strategicMergePatch, strategicMergePatchInPlace } from './apply.js';
import { StrategicMergePatchError, type StrategicMergePatchErrorKind } from './errors.js';
import type { JsonMap } from './go-values.js';
import type { PatchMeta, PatchMetaLookup, PatchSchema } from './patch-meta.js';

// A schema in the shape of upstream's own test type (MergeItem), described in a few lines.
type TypeSpec = { readonly struct: string; readonly fields: () => Record<string, FieldSpec> } | { readonly map: TypeSpec } | { readonly list: TypeSpec } | { readonly prim: string };
interface FieldSpec {
  readonly type: TypeSpec;
  readonly strategy?: string;
  readonly mergeKey?: string;
}

class TestSchema implements PatchSchema {
  constructor(private readonly spec: TypeSpec) {}
  get name(): string {
    if ('struct' in this.spec) return 'struct';
    if ('map' in this.spec) return 'map';
    if ('list' in this.spec) return 'slice';
    return this.spec.prim;
  }
  private field(key: string): FieldSpec {
    if (!('struct' in this.spec)) throw new StrategicMergePatchError(`merging an object in json but data type is not struct, instead is: ${this.name}`);
    const f = this.spec.fields()[key];
    if (f === undefined) throw new StrategicMergePatchError(`unable to find api field in struct ${this.spec.struct} for the json field "${key}"`);
    return f;
  }
  lookupObjectField(key: string): PatchMetaLookup<PatchSchema> {
    const f = this.field(key);
    return { schema: new TestSchema(f.type), meta: metaOf(f) };
  }
  lookupListField(key: string): PatchMetaLookup<PatchSchema> {
    const f = this.field(key);
    if (!('list' in f.type)) throw new StrategicMergePatchError(`expected slice or array type, but got: ${this.name}`);
    return { schema: new TestSchema(f.type.list), meta: metaOf(f) };
  }
}

const metaOf = (f: FieldSpec): PatchMeta => ({ strategies: f.strategy === undefined ? [] : f.strategy.split(','), mergeKey: f.mergeKey ?? '' });

const str: TypeSpec = { prim: 'string' };
const int: TypeSpec = { prim: 'int64' };
const mergeItem: TypeSpec = {
  struct: 'MergeItem',
  fields: () => ({
    name: { type: str },
    value: { type: str },
    other: { type: str },
    mergingList: { type: { list: mergeItem }, strategy: 'merge', mergeKey: 'name' },
    nonMergingList: { type: { list: mergeItem } },
    mergingIntList: { type: { list: int }, strategy: 'merge' },
    nonMergingIntList: { type: { list: int } },
    simpleMap: { type: { map: str } },
    nested: { type: mergeItem },
    replacingItem: { type: mergeItem, strategy: 'replace' },
    retainKeysMap: { type: retainKeysItem, strategy: 'retainKeys' },
    retainKeysMergingList: { type: { list: mergeItem }, strategy: 'merge,retainKeys', mergeKey: 'name' },
    noKeyList: { type: { list: mergeItem }, strategy: 'merge' },
    listOfLists: { type: { list: { list: int } }, strategy: 'merge' },
    badStrategy: { type: mergeItem, strategy: 'merge,replace' },
  }),
};
const retainKeysItem: TypeSpec = {
  struct: 'RetainKeysMergeItem',
  fields: () => ({
    name: { type: str },
    value: { type: str },
    other: { type: str },
    simpleMap: { type: { map: str } },
    mergingList: { type: { list: mergeItem }, strategy: 'merge', mergeKey: 'name' },
    nonMergingList: { type: { list: mergeItem } },
    mergingIntList: { type: { list: int }, strategy: 'merge' },
  }),
};
const schema = new TestSchema(mergeItem);

const patch = (original: JsonMap, p: JsonMap): JsonMap => strategicMergePatch(original, p, schema);

function assertPatchError(original: JsonMap, p: JsonMap, message: string, kind: StrategicMergePatchErrorKind = 'Other'): void {
  assert.throws(
    () => patch(original, p),
    (e: unknown) => {
      assert.ok(e instanceof StrategicMergePatchError, `expected a StrategicMergePatchError, got ${String(e)}`);
      assert.equal(e.message, message);
      assert.equal(e.kind, kind);
      return true;
    },
  );
}

describe('strategic merge patch: maps and values', () => {
  it('adds, replaces and keeps fields', () => {
    assert.deepEqual(patch({ name: 'a', value: '1' }, { value: '2', other: 'x' }), { name: 'a', value: '2', other: 'x' });
  });
  it('null deletes a field, and a null for an absent field is ignored', () => {
    assert.deepEqual(patch({ name: 'a', value: '1' }, { value: null, other: null }), { name: 'a' });
  });
  it('merges nested objects and maps key by key', () => {
    const original = { nested: { name: 'n', value: 'v' }, simpleMap: { a: '1', b: '2' } };
    assert.deepEqual(patch(original, { nested: { value: null, other: 'o' }, simpleMap: { a: null, c: '3' } }), {
      nested: { name: 'n', other: 'o' },
      simpleMap: { b: '2', c: '3' },
    });
  });
  it('a value of another type replaces, without its nulls and directives', () => {
    assert.deepEqual(patch({ nested: 'text' }, { nested: { name: 'n', value: null, simpleMap: { $patch: 'delete', a: '1' } } }), { nested: { name: 'n' } });
  });
  it('a new field takes the patch value without its nulls, and drops elements carrying $patch', () => {
    assert.deepEqual(patch({}, { mergingList: [{ name: 'a', value: null }, { name: 'b', $patch: 'delete' }], nested: { $patch: 'replace', name: 'x' } }), {
      mergingList: [{ name: 'a' }],
    });
  });
  it('a key named __proto__ is an ordinary field', () => {
    const result = patch({ nested: { name: 'a' } }, JSON.parse('{"__proto__":{"x":1},"nested":{"__proto__":{"y":2}}}') as JsonMap);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), { nested: { name: 'a', ['__proto__']: { y: 2 } }, ['__proto__']: { x: 1 } });
  });
  it('does not change its arguments', () => {
    const original = { mergingList: [{ name: 'a', value: '1' }] };
    const p = { mergingList: [{ name: 'a', value: '2' }], $setElementOrder: undefined } as JsonMap;
    delete p.$setElementOrder;
    const before = structuredClone({ original, p });
    patch(original, p);
    assert.deepEqual({ original, p }, before);
  });
  it('the in-place form leaves the patch without its consumed directives', () => {
    const p: JsonMap = { $retainKeys: ['name', 'mergingList'], name: 'b', '$setElementOrder/mergingList': [{ name: 'a' }], mergingList: [{ name: 'a', value: '2' }] };
    strategicMergePatchInPlace({ name: 'a', value: 'x', mergingList: [{ name: 'a' }] }, p, schema);
    assert.deepEqual(p, { name: 'b' });
  });
  it('a field with the replace strategy takes the patch value as sent', () => {
    assert.deepEqual(patch({ replacingItem: { name: 'a', value: '1' } }, { replacingItem: { value: '2', other: null } }), { replacingItem: { value: '2', other: null } });
  });
  it('fields are found whatever the values of unrelated kinds (primitives never need metadata)', () => {
    assert.deepEqual(patch({ unknownField: 'a' }, { unknownField: 'b', another: 1 }), { unknownField: 'b', another: 1 });
  });
});

describe('strategic merge patch: $patch in objects', () => {
  it('$patch: replace replaces the object with the rest of the patch', () => {
    assert.deepEqual(patch({ nested: { name: 'a', value: '1' } }, { nested: { $patch: 'replace', other: 'x' } }), { nested: { other: 'x' } });
  });
  it('$patch: delete empties the object', () => {
    assert.deepEqual(patch({ nested: { name: 'a' }, name: 'top' }, { nested: { $patch: 'delete' } }), { nested: {}, name: 'top' });
  });
  it('$patch at the top level applies to the whole document', () => {
    assert.deepEqual(patch({ name: 'a', value: '1' }, { $patch: 'replace', value: '2' }), { value: '2' });
    assert.deepEqual(patch({ name: 'a' }, { $patch: 'delete' }), {});
  });
  it('an unknown $patch is an error naming it and the map', () => {
    assertPatchError({ nested: { name: 'a' } }, { nested: { $patch: 'frobnicate', value: 1 } }, 'unknown patch type: frobnicate in map: map[$patch:frobnicate value:1]');
    assertPatchError({}, { $patch: 3 }, 'unknown patch type: %!s(int64=3) in map: map[$patch:3]');
  });
});

describe('strategic merge patch: lists of objects merged by key', () => {
  it('merges elements with the same key and appends new ones', () => {
    const original = { mergingList: [{ name: '1', value: 'a' }, { name: '2', value: 'b' }] };
    assert.deepEqual(patch(original, { mergingList: [{ name: '2', value: 'c', other: 'x' }, { name: '3' }] }).mergingList, [
      { name: '1', value: 'a' },
      { name: '2', value: 'c', other: 'x' },
      { name: '3' },
    ]);
  });
  it('a new element goes before the current ones when the patch does not say where (upstream order)', () => {
    assert.deepEqual(patch({ mergingList: [{ name: '1' }, { name: '2' }] }, { mergingList: [{ name: '3' }] }).mergingList, [{ name: '3' }, { name: '1' }, { name: '2' }]);
  });
  it('null deletes a field inside a merged element', () => {
    assert.deepEqual(patch({ mergingList: [{ name: '1', value: 'a', other: 'o' }] }, { mergingList: [{ name: '1', value: null }] }).mergingList, [{ name: '1', other: 'o' }]);
  });
  it('$patch: delete removes every element with the key, and a missing one is no error', () => {
    const original = { mergingList: [{ name: '1' }, { name: '2' }, { name: '1', value: 'dup' }] };
    assert.deepEqual(patch(original, { mergingList: [{ name: '1', $patch: 'delete' }, { name: '9', $patch: 'delete' }] }).mergingList, [{ name: '2' }]);
  });
  it('$patch: replace as an element replaces the whole list with the other elements', () => {
    const original = { mergingList: [{ name: '1', value: 'a' }, { name: '2' }] };
    assert.deepEqual(patch(original, { mergingList: [{ name: '3' }, { $patch: 'replace' }, { name: '1' }] }).mergingList, [{ name: '3' }, { name: '1' }]);
  });
  it('$patch: merge as an element is not supported', () => {
    assertPatchError({ mergingList: [{ name: '1' }] }, { mergingList: [{ $patch: 'merge' }] }, 'merging lists cannot yet be specified in the patch');
  });
  it('an unknown element directive is an error', () => {
    assertPatchError({ mergingList: [{ name: '1' }] }, { mergingList: [{ name: '1', $patch: 'nope' }] }, 'unknown patch type: nope in map: map[$patch:nope name:1]');
  });
  it('an element without the merge key is an error naming the map and the key', () => {
    assertPatchError({ mergingList: [{ name: '1' }] }, { mergingList: [{ value: 'x' }] }, 'map: map[value:x] does not contain declared merge key: name');
    assertPatchError({ mergingList: [{ name: '1' }] }, { mergingList: [{ $patch: 'delete', value: 'x' }] }, 'map: map[$patch:delete value:x] does not contain declared merge key: name');
  });
  it('merges lists nested in merged elements, by their own keys', () => {
    const original = { mergingList: [{ name: '1', mergingList: [{ name: 'a', value: 'x' }, { name: 'b' }], nonMergingList: [{ name: 'k' }] }] };
    const result = patch(original, { mergingList: [{ name: '1', mergingList: [{ name: 'a', value: 'y' }, { name: 'b', $patch: 'delete' }], nonMergingList: [{ name: 'z' }] }] });
    assert.deepEqual(result.mergingList, [{ name: '1', mergingList: [{ name: 'a', value: 'y' }], nonMergingList: [{ name: 'z' }] }]);
  });
  it('a merge list with no merge key cannot merge objects', () => {
    assertPatchError({ noKeyList: [{ name: '1' }] }, { noKeyList: [{ name: '2' }] }, 'cannot merge lists without merge key for struct');
  });
  it('elements of mixed types are an error', () => {
    assertPatchError({ mergingList: [{ name: '1' }] }, { mergingList: ['x'] }, 'list element types are not identical: [[map[name:1]] [x]]');
  });
  it('a list of lists is unprocessable', () => {
    assertPatchError({ listOfLists: [[1]] }, { listOfLists: [[2]] }, 'lists of lists are not supported', 'Unprocessable');
  });
  it('an empty patch list leaves the list as it is; both empty stays empty', () => {
    assert.deepEqual(patch({ mergingList: [{ name: '1' }] }, { mergingList: [] }).mergingList, [{ name: '1' }]);
    assert.deepEqual(patch({ mergingList: [] }, { mergingList: [] }).mergingList, []);
  });
});

describe('strategic merge patch: lists without merge strategy', () => {
  it('a list of objects without the merge strategy is replaced', () => {
    assert.deepEqual(patch({ nonMergingList: [{ name: '1' }, { name: '2' }] }, { nonMergingList: [{ name: '3' }] }).nonMergingList, [{ name: '3' }]);
  });
  it('a list of primitives without the merge strategy is replaced', () => {
    assert.deepEqual(patch({ nonMergingIntList: [1, 2] }, { nonMergingIntList: [3] }).nonMergingIntList, [3]);
  });
  it('null deletes a list', () => {
    assert.deepEqual(patch({ nonMergingIntList: [1], mergingList: [{ name: 'a' }] }, { nonMergingIntList: null, mergingList: null }), {});
  });
});

describe('strategic merge patch: lists of primitives with merge strategy', () => {
  it('merges as a set, the current items first', () => {
    assert.deepEqual(patch({ mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }).mergingIntList, [1, 2, 3]);
  });
  it('a new item goes first when the current items are not named by the patch', () => {
    assert.deepEqual(patch({ mergingIntList: [1, 2] }, { mergingIntList: [3] }).mergingIntList, [3, 1, 2]);
  });
  it('duplicates are removed', () => {
    assert.deepEqual(patch({ mergingIntList: [1, 1, 2] }, { mergingIntList: [2, 2] }).mergingIntList, [1, 2]);
  });
  it('$deleteFromPrimitiveList removes every copy of the items', () => {
    assert.deepEqual(patch({ mergingIntList: [1, 2, 1, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [1, 9] }).mergingIntList, [2, 3]);
  });
  it('$deleteFromPrimitiveList works on a list without merge strategy too', () => {
    assert.deepEqual(patch({ nonMergingIntList: [1, 2] }, { '$deleteFromPrimitiveList/nonMergingIntList': [2] }).nonMergingIntList, [1]);
  });
  it('$deleteFromPrimitiveList of an absent list or a missing item adds nothing', () => {
    assert.deepEqual(patch({ name: 'a' }, { '$deleteFromPrimitiveList/mergingIntList': [1] }), { name: 'a' });
    assert.deepEqual(patch({ mergingIntList: [] }, { '$deleteFromPrimitiveList/mergingIntList': [1] }), { mergingIntList: [] });
    assert.deepEqual(patch({ mergingIntList: [2] }, { '$deleteFromPrimitiveList/mergingIntList': [1] }), { mergingIntList: [2] });
  });
  it('adding and deleting in one patch', () => {
    assert.deepEqual(patch({ mergingIntList: [1, 2] }, { mergingIntList: [3], '$deleteFromPrimitiveList/mergingIntList': [1], '$setElementOrder/mergingIntList': [2, 3] }).mergingIntList, [2, 3]);
  });
  it('a malformed $deleteFromPrimitiveList key is a bad request', () => {
    assertPatchError({ mergingIntList: [1] }, { $deleteFromPrimitiveList: [1] }, 'invalid patch format of primitive list', 'BadRequest');
    assertPatchError({ mergingIntList: [1] }, { '$deleteFromPrimitiveListX/mergingIntList': [1] }, 'invalid patch format of primitive list', 'BadRequest');
  });
});

describe('strategic merge patch: $setElementOrder', () => {
  it('orders a merged list of objects, keeping server-only items in their place', () => {
    const original = { mergingList: [{ name: '1', other: 'a' }, { name: '3' }, { name: '4' }, { name: '2' }, { name: '9' }] };
    const p = { '$setElementOrder/mergingList': [{ name: '4' }, { name: '2' }, { name: '3' }, { name: '1' }] };
    assert.deepEqual(
      patch(original, p).mergingList!,
      [{ name: '4' }, { name: '2' }, { name: '3' }, { name: '1', other: 'a' }, { name: '9' }],
    );
  });
  it('places new items where the directive says', () => {
    const original = { mergingList: [{ name: '1', other: 'a' }, { name: '2', value: '2' }] };
    const p = { '$setElementOrder/mergingList': [{ name: '3' }, { name: '1' }, { name: '2' }], mergingList: [{ name: '3', value: '3' }] };
    assert.deepEqual(patch(original, p).mergingList, [{ name: '3', value: '3' }, { name: '1', other: 'a' }, { name: '2', value: '2' }]);
  });
  it('orders with deletions (as kubectl apply sends them)', () => {
    const original = { mergingList: [{ name: '1' }, { name: '2' }, { name: '3' }] };
    const p = { '$setElementOrder/mergingList': [{ name: '3' }, { name: '1' }], mergingList: [{ name: '2', $patch: 'delete' }] };
    assert.deepEqual(patch(original, p).mergingList, [{ name: '3' }, { name: '1' }]);
  });
  it('server-only items take the places deletions free for new items, as upstream edits its list in place', () => {
    // Deleting x frees the last place of the list's storage; the first new item (n) takes it, so the
    // server-only item s counts as coming before n, and the next new one (m) as unknown to the server.
    const original = { mergingList: [{ name: 'x' }, { name: 's', other: 'kept' }] };
    const p = { '$setElementOrder/mergingList': [{ name: 'n' }, { name: 'm' }], mergingList: [{ name: 'n' }, { name: 'm' }, { name: 'x', $patch: 'delete' }] };
    assert.deepEqual(patch(original, p).mergingList, [{ name: 's', other: 'kept' }, { name: 'n' }, { name: 'm' }]);
    // Without the deletion there is no free place: both new items count as unknown and go first.
    const q = { '$setElementOrder/mergingList': [{ name: 'n' }, { name: 'm' }], mergingList: [{ name: 'n' }, { name: 'm' }] };
    assert.deepEqual(patch({ mergingList: [{ name: 's' }] }, q).mergingList, [{ name: 'n' }, { name: 'm' }, { name: 's' }]);
  });
  it('orders a primitive list, a server-only item after', () => {
    const p = { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3] };
    assert.deepEqual(patch({ mergingIntList: [1, 2, 4] }, p).mergingIntList, [1, 2, 3, 4]);
    assert.deepEqual(patch({ mergingIntList: [3, 1, 2] }, { '$setElementOrder/mergingIntList': [2, 1, 3] }).mergingIntList, [2, 1, 3]);
  });
  it('adds a list the object lacks, without the directives in it', () => {
    const p = { '$setElementOrder/mergingList': [{ name: 'b' }, { name: 'a' }], mergingList: [{ name: 'b', mergingList: [{ name: 'x', $patch: 'delete' }] }, { name: 'a' }] };
    assert.deepEqual(patch({}, p).mergingList, [{ name: 'b', mergingList: [] }, { name: 'a' }]);
  });
  it('without a list in either document it does nothing', () => {
    assert.deepEqual(patch({ name: 'a' }, { '$setElementOrder/mergingList': [{ name: 'a' }] }), { name: 'a' });
  });
  it('a patch list that names an item the order leaves out is an error', () => {
    assertPatchError(
      { mergingList: [{ name: '1' }] },
      { '$setElementOrder/mergingList': [{ name: '1' }], mergingList: [{ name: '2' }] },
      "The order in patch list:\n[map[name:2]]\n doesn't match $setElementOrder list:\n[map[name:1]]\n",
    );
    assertPatchError(
      { mergingList: [{ name: '1' }, { name: '2' }] },
      { '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }], mergingList: [{ name: '2' }, { name: '1' }] },
      "The order in patch list:\n[map[name:2] map[name:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2]]\n",
    );
  });
  it('an order item without the merge key is an error', () => {
    assertPatchError({ mergingList: [{ name: '1' }] }, { '$setElementOrder/mergingList': [{ value: '1' }], mergingList: [{ name: '1' }] }, 'map: map[value:1] does not contain declared merge key: name');
  });
  it('a directive that is not a list, or names a field that is not, is an error', () => {
    assertPatchError({ mergingList: [] }, { '$setElementOrder/mergingList': 'x' }, 'expected a []interface {}, but received a string');
    assertPatchError({ name: 'a' }, { '$setElementOrder/name': ['a'] }, 'expected a []interface {}, but received a string');
    assertPatchError({ value: 'a' }, { '$setElementOrder/name': ['a'] }, 'expected slice or array type, but got: struct');
    assertPatchError({ name: 'a' }, { '$setElementOrder/unknown': ['a'] }, 'unable to find api field in struct MergeItem for the json field "unknown"');
    assertPatchError({ mergingList: [] }, { $setElementOrder: [] }, 'invalid patch format of setElementOrder list', 'BadRequest');
  });
  it('needs elements in one of the lists to know their kind', () => {
    assertPatchError({ mergingList: [] }, { '$setElementOrder/mergingList': [], mergingList: [] }, 'no elements in any of the given slices');
  });
});

describe('strategic merge patch: $retainKeys', () => {
  it('clears the keys it does not name (retainKeys strategy)', () => {
    const original = { retainKeysMap: { name: 'n', value: 'v', other: 'o' } };
    assert.deepEqual(patch(original, { retainKeysMap: { $retainKeys: ['name', 'other'], other: 'p' } }).retainKeysMap, { name: 'n', other: 'p' });
  });
  it('works inside merged list elements', () => {
    const original = { retainKeysMergingList: [{ name: '1', value: 'v', other: 'o' }, { name: '2', value: 'w' }] };
    const result = patch(original, { retainKeysMergingList: [{ name: '1', $retainKeys: ['name', 'value'], value: 'x' }] });
    assert.deepEqual(result.retainKeysMergingList, [{ name: '1', value: 'x' }, { name: '2', value: 'w' }]);
  });
  it('nulls and list directives need not be named', () => {
    const original = { retainKeysMap: { name: 'n', value: 'v', mergingIntList: [1, 2] } };
    const p = { retainKeysMap: { $retainKeys: ['name', 'mergingIntList'], value: null, '$deleteFromPrimitiveList/mergingIntList': [1], '$setElementOrder/mergingIntList': [2] } };
    assert.deepEqual(patch(original, p).retainKeysMap, { name: 'n', mergingIntList: [2] });
  });
  it('a field set outside the list, or a list that is not a list, is a bad request', () => {
    assertPatchError({ retainKeysMap: { name: 'n' } }, { retainKeysMap: { $retainKeys: ['name'], value: 'v' } }, 'invalid patch format of retainKeys', 'BadRequest');
    assertPatchError({ retainKeysMap: { name: 'n' } }, { retainKeysMap: { $retainKeys: 'name' } }, 'invalid patch format of retainKeys', 'BadRequest');
  });
});

describe('strategic merge patch: metadata lookups', () => {
  it('a field the schema does not know fails when both sides are objects or lists', () => {
    assertPatchError({ mystery: { a: 1 } }, { mystery: { a: 2 } }, 'unable to find api field in struct MergeItem for the json field "mystery"');
    assertPatchError({ simpleMap: { a: { b: 1 } } }, { simpleMap: { a: { b: 2 } } }, 'merging an object in json but data type is not struct, instead is: map');
  });
  it('a field with two strategies other than retainKeys is an error', () => {
    assertPatchError({ badStrategy: { name: 'a' } }, { badStrategy: { name: 'b' } }, 'unexpected patch strategy: [merge replace]');
  });
});
