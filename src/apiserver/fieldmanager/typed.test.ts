import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, fieldElement, keyElement, pathString, type JsonValue } from './field-set.js';
import { builtinTypeSchema, TypeSchema, type ListType } from './schema.js';
import { compare, ensureNamedFieldsAreMembers, listItemElement, merge, removeItems, toFieldSet, TypedError } from './typed.js';

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
