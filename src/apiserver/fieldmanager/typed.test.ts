import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, fieldElement, keyElement, pathString, type JsonValue } from './field-set.js';
import { builtinTypeSchema, TypeSchema, type ListType } from './schema.js';
import { compare, compareCompleted, ensureNamedFieldsAreMembers, listItemElement, merge, removeItems, sameJson, toFieldSet, TypedError } from './typed.js';
import { withValueStructs } from './value-structs.js';

const f = fieldElement;

/** A small schema with every list and map type. */
const schema = new TypeSchema({
  Thing: {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'test', version: 'v1', kind: 'Thing' }],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      atomicList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
      plainList: { type: 'array', items: { type: 'string' } },
      setList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      mapList: { type: 'array', items: { $ref: '#/components/schemas/Item' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
      mergeList: { type: 'array', items: { $ref: '#/components/schemas/Item' }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      ref: { allOf: [{ $ref: '#/components/schemas/Item' }], 'x-kubernetes-map-type': 'atomic' },
      struct: { allOf: [{ $ref: '#/components/schemas/Item' }] },
      anything: {},
    },
  },
  Item: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' }, extra: { type: 'string' } } },
});
const thing = schema.typeOfKind('test', 'v1', 'Thing');
const paths = (s: FieldSet): string[] => s.list().map(pathString);

describe('typed values', () => {
  it('lists the fields a value sets, by list and map type', () => {
    const v: JsonValue = {
      atomicList: ['a'],
      plainList: ['a'],
      setList: ['b', 'a'],
      mapList: [{ name: 'x', value: '1' }],
      mergeList: [{ name: 'y' }],
      labels: { l: 'v' },
      selector: { s: 'v' },
      ref: { name: 'r' },
      struct: { name: 's' },
      anything: { deep: { er: 1 } },
    };
    assert.deepEqual(paths(toFieldSet(schema, v, thing)).sort(), [
      '.anything.deep',
      '.anything.deep.er',
      '.atomicList',
      '.labels.l',
      '.mapList[name="x"]',
      '.mapList[name="x"].name',
      '.mapList[name="x"].value',
      '.mergeList[name="y"]',
      '.mergeList[name="y"].name',
      '.plainList',
      '.ref',
      '.selector',
      '.setList[="a"]',
      '.setList[="b"]',
      '.struct.name',
    ]);
  });

  it('rejects list items without their keys', () => {
    assert.throws(() => toFieldSet(schema, { mapList: [{ value: 'x' }] }, thing), /omits key field "name"/);
    assert.throws(() => toFieldSet(schema, { mapList: ['x'] }, thing), TypedError);
    assert.throws(() => toFieldSet(schema, { setList: [{ a: 1 }] }, thing), TypedError);
  });

  it('defaults the protocol of port keys, as upstream does', () => {
    const s = builtinTypeSchema();
    const pod = s.typeOfKind('', 'v1', 'Pod');
    const set = toFieldSet(s, { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } }, pod);
    assert.ok(set.has([f('spec'), f('containers'), keyElement([['name', 'c']]), f('ports'), keyElement([['containerPort', 80], ['protocol', 'TCP']])]));
  });

  it('compares two values: added, modified and removed fields', () => {
    const c = compare(schema, { labels: { a: '1', b: '2' }, mapList: [{ name: 'x', value: '1' }] }, { labels: { a: '9', c: '3' }, setList: ['s'] }, thing);
    // Members of a node come before its children, as upstream iterates.
    assert.deepEqual(paths(c.added), ['.setList', '.labels.c', '.setList[="s"]']);
    assert.deepEqual(paths(c.modified), ['.labels.a']);
    assert.deepEqual(paths(c.removed), ['.mapList', '.labels.b', '.mapList[name="x"]', '.mapList[name="x"].name', '.mapList[name="x"].value']);
    // Atomic things change as one.
    const atomic = compare(schema, { selector: { a: '1' } }, { selector: { a: '2' } }, thing);
    assert.deepEqual(paths(atomic.modified), ['.selector']);
  });

  it('merges an applied value: associative lists by key, atomic ones replaced', () => {
    const live = { mapList: [{ name: 'a', value: '1', extra: 'e' }, { name: 'b' }], atomicList: ['x', 'y'], labels: { keep: 'k' } };
    const applied = { mapList: [{ name: 'a', value: '2' }, { name: 'c' }], atomicList: ['z'], labels: { new: 'n' } };
    assert.deepEqual(merge(schema, live, applied, thing), {
      mapList: [{ name: 'a', value: '2', extra: 'e' }, { name: 'b' }, { name: 'c' }],
      atomicList: ['z'],
      labels: { keep: 'k', new: 'n' },
    });
  });

  it('keeps the applied order of shared items and places live-only items after their neighbours', () => {
    const live = { setList: ['a', 'b', 'c'] };
    const applied = { setList: ['c', 'a'] };
    assert.deepEqual(merge(schema, live, applied, thing), { setList: ['b', 'c', 'a'] });
    assert.throws(() => merge(schema, live, { setList: ['x', 'x'] }, thing), /duplicate entries/);
  });

  it('removes a set of fields, and the containers left empty', () => {
    const v = { labels: { a: '1', b: '2' }, mapList: [{ name: 'x', value: '1' }, { name: 'y' }], struct: { name: 'n' } };
    const set = FieldSet.of([f('labels'), f('a')], [f('mapList'), keyElement([['name', 'x']])], [f('struct'), f('name')]);
    assert.deepEqual(removeItems(schema, v, set, thing), { labels: { b: '2' }, mapList: [{ name: 'y' }] });
  });

  it('makes struct fields with owned children members themselves', () => {
    const set = FieldSet.of([f('struct'), f('name')], [f('labels'), f('a')]);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(schema, set, thing)).sort(), ['.labels', '.labels.a', '.struct', '.struct.name']);
  });
});

describe('list item elements', () => {
  const thing = schema.typeOfKind('test', 'v1', 'Thing');
  const listOf = (field: string): ListType => schema.resolve(schema.resolve(thing).map!.fields.get(field)!).list!;

  it('gives items with the same key value the same element, and items with other values (or types) others', () => {
    const mapList = listOf('mapList');
    const a = listItemElement(schema, mapList, { name: 'a', value: 1 });
    assert.equal(listItemElement(schema, mapList, { name: 'a', value: 2 }), a);
    assert.deepEqual(a, keyElement([['name', 'a']]));
    assert.notEqual(listItemElement(schema, mapList, { name: 'b' }), a);
    const setList = listOf('setList');
    assert.notEqual(listItemElement(schema, setList, 1), listItemElement(schema, setList, '1'));
    assert.deepEqual(listItemElement(schema, setList, '1'), { value: '1' });
  });

  it('still reports items without their key', () => {
    assert.throws(() => listItemElement(schema, listOf('mapList'), { value: 1 }), /omits key field "name"/);
  });
});

describe('comparison of values partly the same', () => {
  const s = builtinTypeSchema();
  const podType = s.typeOfKind('', 'v1', 'Pod');
  const deploymentType = s.typeOfKind('apps', 'v1', 'Deployment');
  const pod = (status: JsonValue, extra: { [key: string]: JsonValue } = {}): { [key: string]: JsonValue } => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'd', labels: { app: 'a' }, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u' }] },
    spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }], resources: {} }] },
    status,
    ...extra,
  });
  const asPaths = (c: { added: FieldSet; modified: FieldSet; removed: FieldSet }): string[][] => [paths(c.added), paths(c.modified), paths(c.removed)];
  const completedFirst = (l: { [key: string]: JsonValue }, r: { [key: string]: JsonValue }, t = podType): string[][] =>
    asPaths(compare(s, withValueStructs(s, l, t), withValueStructs(s, r, t), t));

  it('finds what comparing the values completed as Go holds them finds, completing only where it walks', () => {
    const conditions = (ready: string): JsonValue => [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: ready }];
    const pairs: Array<[{ [key: string]: JsonValue }, { [key: string]: JsonValue }]> = [
      [pod({ phase: 'Pending' }), pod({ phase: 'Running', conditions: conditions('False') })],
      [pod({ phase: 'Running', conditions: conditions('False') }), pod({ phase: 'Running', conditions: conditions('True') })],
      // An atomic list of structs: items the same once completed are no change.
      [pod({ containerStatuses: [{ name: 'c', ready: false }] }), pod({ containerStatuses: [{ name: 'c', ready: false, resources: {} }] })],
      [pod({ containerStatuses: [{ name: 'c', ready: false }] }), pod({ containerStatuses: [{ name: 'c', ready: true }] })],
      // A required list removed is nil, not gone; an emptied struct is still there.
      [pod({}), { ...pod({}), spec: {} }],
      [pod({}), { ...pod({}), spec: { containers: [{ name: 'c', image: 'i' }] } }],
      [{}, pod({ phase: 'Pending' })],
      [pod({ phase: 'Pending' }), {}],
      [pod({}), pod({}, { metadata: { name: 'p' } })],
    ];
    for (const [l, r] of pairs) assert.deepEqual(asPaths(compareCompleted(s, l, r, podType)), completedFirst(l, r), JSON.stringify([l, r]));
    const deployment = (template: JsonValue): { [key: string]: JsonValue } => ({ spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template } });
    const templates: JsonValue[] = [{}, { metadata: {} }, { spec: { containers: [{ name: 'c', image: 'x' }] } }, { spec: { containers: [{ name: 'c', image: 'y', resources: {} }] } }];
    for (const a of templates) {
      for (const b of templates) {
        assert.deepEqual(asPaths(compareCompleted(s, deployment(a), deployment(b), deploymentType)), completedFirst(deployment(a), deployment(b), deploymentType));
      }
    }
  });

  it('finds nothing in values the same, and still fails on a list item without its key where a full walk would', () => {
    assert.deepEqual(asPaths(compareCompleted(s, pod({ phase: 'Running' }), pod({ phase: 'Running' }), podType)), [[], [], []]);
    const nameless = pod({ phase: 'Running' });
    ((nameless.spec as { containers: Array<{ env: JsonValue[] }> }).containers[0]!.env).push({ value: 'no name' });
    const changed = structuredClone(nameless);
    changed.status = { phase: 'Succeeded' };
    // The spec is the same on both sides, so it is not compared; its item is checked all the same.
    assert.throws(() => compareCompleted(s, nameless, changed, podType), /omits key field "name"/);
    assert.throws(() => compare(s, nameless, changed, podType), /omits key field "name"/);
    assert.throws(() => compare(schema, { mapList: [{ value: 'x' }], labels: { a: '1' } }, { mapList: [{ value: 'x' }], labels: { a: '2' } }, thing), /omits key field "name"/);
    // Items with the same key twice are compared as a whole, not walked into: nothing inside them is checked.
    const twice = { mapList: [{ name: 'x', value: '1' }, { name: 'x', value: '2' }], labels: { a: '1' } };
    assert.deepEqual(asPaths(compare(schema, twice, { ...twice, labels: { a: '2' } }, thing)), [[], ['.labels.a'], []]);
  });

  it('tells JSON values apart by own keys and values, whatever their key order', () => {
    assert.ok(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }));
    assert.ok(!sameJson({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!sameJson({ a: 1, b: 2 }, { a: 1, c: 2 }));
    assert.ok(!sameJson([1, 2], [2, 1]));
    assert.ok(!sameJson({}, []));
    assert.ok(!sameJson(null, {}));
    assert.ok(!sameJson({ toString: 'x' }, { valueOf: 'x' }));
  });
});
