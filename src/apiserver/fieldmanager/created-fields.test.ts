import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDeployment } from '../../api/apps/v1/defaults.js';
import { defaultPod } from '../../api/core/v1/defaults.js';
import { createdFieldSet } from './created-fields.js';
import { FieldSet, fieldElement, keyElement, type FieldsV1, type JsonValue, type Path } from './field-set.js';
import { builtinTypeSchema, TypeSchema, type TypeRef } from './schema.js';
import { compareCompleted } from './typed.js';

type Obj = { [key: string]: JsonValue };
const f = fieldElement;

const STRIPPED = FieldSet.of(
  [f('apiVersion')],
  [f('kind')],
  [f('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'uid', 'generation', 'managedFields', 'resourceVersion'].map((n): Path => [f('metadata'), f(n)]),
);
const NONE = new FieldSet();

/** What trackUpdate records over nothing, the general way: compare with an empty object (as withoutManagedFields gives it). */
function general(schema: TypeSchema, value: Obj, type: TypeRef, cut: FieldSet, drop: FieldSet): FieldsV1 {
  const c = compareCompleted(schema, { metadata: {} }, value, type);
  return c.modified.union(c.added).recursiveDifference(cut).difference(drop).toFieldsV1();
}

/**
 * The fast path's FieldsV1 and the general one's, as text (key order
 * included); 'declined' when the fast path declines, 'throws' when the
 * general way throws (the fast path must then decline, for the general way to throw as before).
 */
function both(schema: TypeSchema, value: Obj, type: TypeRef, cut = NONE, drop = STRIPPED): { fast: string; slow: string } {
  const fast = createdFieldSet(schema, value, type, cut, drop);
  let slow: string;
  try {
    slow = JSON.stringify(general(schema, value, type, cut, drop));
  } catch {
    slow = 'throws';
  }
  if (slow === 'throws') assert.equal(fast, undefined, `the general way throws but not the fast one: ${JSON.stringify(value)}`);
  return { fast: fast === undefined ? 'declined' : JSON.stringify(fast.toFieldsV1()), slow };
}

/** The same FieldsV1 both ways (the general way does not throw on these). */
function assertSame(schema: TypeSchema, value: Obj, type: TypeRef, cut = NONE, drop = STRIPPED): void {
  const { fast, slow } = both(schema, value, type, cut, drop);
  assert.equal(fast, slow, JSON.stringify(value));
}

const s = builtinTypeSchema();
const podType = s.typeOfKind('', 'v1', 'Pod');
const deploymentType = s.typeOfKind('apps', 'v1', 'Deployment');
const STATUS = FieldSet.of([f('status')]);
const SPEC = FieldSet.of([f('spec')]);

function pod(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'd',
      labels: { app: 'a', 'z-last': 'x', Upper: 'y', 'é': 'accent' },
      annotations: { 'a/b': 'c' },
      finalizers: ['x/b', 'x/a'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true }],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'i',
          ports: [{ containerPort: 8080 }, { containerPort: 53, protocol: 'UDP' }, { containerPort: 53 }],
          env: [{ name: 'B', value: '1' }, { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { requests: { cpu: '1' } },
          securityContext: {},
          volumeMounts: [{ name: 'v', mountPath: '/v' }],
        },
        { name: 'side', image: 'j', command: ['a', 'b'] },
      ],
      initContainers: [],
      volumes: [{ name: 'v', emptyDir: {} }],
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'k', operator: 'Exists' }],
      securityContext: {},
      hostAliases: [{ ip: '1.2.3.4', hostnames: ['a'] }],
    },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }], podIPs: [{ ip: '10.0.0.1' }] },
  };
}

describe('createdFieldSet (the fields of a write over nothing, in one walk)', () => {
  it('gives what comparing with an empty object gives, for pods as created and defaulted', () => {
    assertSame(s, pod(), podType);
    assertSame(s, pod(), podType, STATUS);
    assertSame(s, pod(), podType, SPEC);
    const defaulted = pod();
    defaultPod(defaulted as never);
    assertSame(s, defaulted, podType, STATUS);
    // Each field of the spec and of the container alone.
    const full = pod();
    const spec = full.spec as Obj;
    for (const k of Object.keys(spec)) assertSame(s, { ...full, spec: { [k]: spec[k]! } }, podType, STATUS);
    const container = (spec.containers as Obj[])[0]!;
    for (const k of Object.keys(container)) assertSame(s, { ...full, spec: { containers: [{ name: 'c', [k]: container[k]! }] } }, podType);
  });

  it('agrees on empty and odd values: empty objects and lists, nulls, undefined, unknown fields, duplicate keys', () => {
    const cases: Obj[] = [
      {},
      { metadata: {} },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
      { spec: {} },
      { spec: { containers: [] } },
      { spec: { containers: null } },
      { spec: { containers: [{ name: 'a' }, { name: 'a', image: 'x' }, { name: 'b' }] } },
      { spec: { containers: [{ name: 'a', ports: [{ containerPort: 1 }, { containerPort: 1, protocol: 'TCP' }] }] } },
      { spec: { containers: [{ name: 'a', resources: {} }] }, status: {} },
      { spec: { containers: [{ name: 'a', resources: null }] } },
      { spec: { containers: [{ name: 'a', image: undefined as unknown as JsonValue }] } },
      { spec: { nodeSelector: {} }, metadata: { labels: {}, annotations: null } },
      { spec: { unknownField: { a: 1 }, containers: [{ name: 'c', unknown: [1, 2] }] } },
      { metadata: { labels: { '1': 'a', '10': 'b', '2': 'c', a: 'd' } } },
      { spec: { containers: 'not a list' } },
      { status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: true, state: { running: {} } }] } },
    ];
    for (const c of cases) {
      assertSame(s, c, podType);
      assertSame(s, c, podType, STATUS);
    }
  });

  it('declines where it does not follow the comparison, and the general way answers', () => {
    // A value struct (the spec) that holds no object.
    assert.equal(createdFieldSet(s, { spec: null }, podType, NONE, STRIPPED), undefined);
    assert.equal(createdFieldSet(s, { spec: [1] }, podType, NONE, STRIPPED), undefined);
    // A list item without its key: the general way fails as it did.
    assert.equal(createdFieldSet(s, { spec: { containers: [{ image: 'x' }] } }, podType, NONE, STRIPPED), undefined);
    assert.throws(() => general(s, { spec: { containers: [{ image: 'x' }] } }, podType, NONE, STRIPPED), /omits key field "name"/);
    // A walk left midway (its arrays per level are reused) leaves the next walks right.
    assert.equal(createdFieldSet(s, { metadata: { labels: { a: 'b' } }, spec: { hostname: 'h', containers: [{ image: 'x' }] } }, podType, NONE, STRIPPED), undefined);
    assertSame(s, pod(), podType);
    assertSame(s, pod(), podType, STATUS);
  });

  it('agrees for deployments (templates hold value structs within value structs)', () => {
    const deployment = (template: JsonValue): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: { a: 'b' } },
      spec: { replicas: 2, selector: { matchLabels: { a: 'b' } }, strategy: {}, template },
    });
    const templates: JsonValue[] = [
      {},
      { metadata: {} },
      { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] } },
      { spec: { containers: [{ name: 'c', image: 'y', resources: {} }], volumes: [] } },
    ];
    for (const t of templates) {
      const d = deployment(t);
      assertSame(s, d, deploymentType, STATUS);
      defaultDeployment(d as never);
      assertSame(s, d, deploymentType, STATUS);
    }
    assertSame(s, { spec: { template: { spec: {} } } }, deploymentType);
  });

  it('agrees for other kinds: services, config maps, kinds the schemas do not have', () => {
    const service: Obj = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { selector: { a: 'b' }, ports: [{ port: 80, targetPort: 8080 }, { port: 53, protocol: 'UDP' }], clusterIPs: ['10.0.0.1'], ipFamilies: ['IPv4'] },
    };
    assertSame(s, service, s.typeOfKind('', 'v1', 'Service'), STATUS);
    const configMap: Obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { x: 'y' } }, data: { b: '1', a: '2' }, binaryData: {} };
    assertSame(s, configMap, s.typeOfKind('', 'v1', 'ConfigMap'));
    const custom: Obj = { apiVersion: 'x/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec: { items: [1, 2], nested: { a: {} } }, status: { ok: true } };
    assertSame(s, custom, s.typeOfKind('x', 'v1', 'Widget'));
    assertSame(s, custom, s.typeOfKind('x', 'v1', 'Widget'), STATUS);
    assertSame(s, { metadata: {} }, s.typeOfKind('x', 'v1', 'Widget'));
  });

  it('agrees on sets, maps and keyed lists of a schema of every list and map type, with cuts and drops inside them', () => {
    const schema = new TypeSchema({
      Thing: {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group: 'test', version: 'v1', kind: 'Thing' }],
        required: ['requiredList', 'requiredMap'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          atomicList: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
          setList: { type: 'array', items: {}, 'x-kubernetes-list-type': 'set' },
          mapList: { type: 'array', items: { $ref: '#/components/schemas/Item' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'] },
          requiredList: { type: 'array', items: { $ref: '#/components/schemas/Item' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
          requiredMap: { type: 'object', additionalProperties: { type: 'string' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          selector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
          spec: { $ref: '#/components/schemas/test.ThingSpec' },
          anything: {},
        },
      },
      'test.ThingSpec': { type: 'object', required: ['list'], properties: { list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' }, inner: { $ref: '#/components/schemas/test.InnerSpec' } } },
      'test.InnerSpec': { type: 'object', properties: { x: { type: 'string' } } },
      Item: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' }, value: { type: 'string' } } },
    });
    const thing = schema.typeOfKind('test', 'v1', 'Thing');
    // Its specs are value structs (named as upstream names them).
    assert.deepEqual(JSON.parse(both(schema, {}, thing).slow), {});
    const values: Obj[] = [
      {},
      { requiredList: [], requiredMap: {} },
      { requiredList: [{ name: 'a' }, { name: 'a' }, { name: 'b', value: 'v' }], requiredMap: { b: '1', a: '2' } },
      { requiredList: 'x', requiredMap: 3 },
      { setList: [3, 1.5, 'b', 'a', true, null, [1], [0, 2], 1, 1] },
      { setList: [{ b: 1, a: 2 }] },
      { mapList: [{ name: 'x', port: { b: 1, a: 2 } }, { name: 'x', port: { a: 2, b: 1 } }, { name: 'x', port: 1 }] },
      { mapList: [{ name: 'x', port: 2 }, { name: 'x', port: 1, value: 'v' }, { name: 'a', port: 10 }, { name: 'x', port: 2 }] },
      { atomicList: [], selector: {}, labels: { b: '', a: '' }, anything: { deep: [{ x: 1 }] } },
      { spec: {} },
      { spec: { list: [] } },
      { spec: { list: ['b', 'a'], inner: {} } },
      { spec: { inner: { x: 'y' } } },
      { spec: { list: null } },
    ];
    const cuts = [NONE, FieldSet.of([f('labels'), f('a')]), FieldSet.of([f('spec'), f('list')]), FieldSet.of([f('requiredList'), keyElement([['name', 'b']])])];
    const drops = [NONE, STRIPPED, FieldSet.of([f('labels')], [f('requiredList')], [f('spec'), f('inner')], [f('mapList'), keyElement([['name', 'a'], ['port', 10]])])];
    for (const v of values) {
      for (const cut of cuts) {
        for (const drop of drops) {
          const { fast, slow } = both(schema, v, thing, cut, drop);
          if (slow !== 'throws') assert.equal(fast, slow, `${JSON.stringify(v)} cut ${JSON.stringify(cut.toFieldsV1())} drop ${JSON.stringify(drop.toFieldsV1())}`);
        }
      }
    }
    // It declines where a value struct holds something other than an object, and where the general way throws.
    assert.equal(both(schema, { spec: 'x' }, thing).fast, 'declined');
    assert.equal(both(schema, { spec: { inner: null } }, thing).fast, 'declined');
    assert.deepEqual(both(schema, { setList: [{ a: 1 }] }, thing), { fast: 'declined', slow: 'throws' });
  });
  it('agrees on the order of fields, declared or not, many or few, and on one-item lists with cuts and drops', () => {
    const declared = ['zeta', 'Alpha', 'alpha', 'é', 'b10', 'b2', ...Array.from({ length: 20 }, (_, i) => `f${i}`)];
    const schema = new TypeSchema({
      Mixed: {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group: 'test', version: 'v1', kind: 'Mixed' }],
        required: ['list'],
        properties: {
          ...Object.fromEntries(declared.map((n) => [n, { type: 'string' }])),
          spec: { $ref: '#/components/schemas/test.MixedSpec' },
          inner: { $ref: '#/components/schemas/test.Inner' },
          list: { type: 'array', items: { $ref: '#/components/schemas/Item' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
        },
        additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
      },
      'test.MixedSpec': { type: 'object', properties: Object.fromEntries(declared.map((n) => [n, { type: 'string' }])), additionalProperties: { type: 'string' } },
      // Not a value struct: its fields are all added (mapEntries, not compared).
      'test.Inner': { type: 'object', properties: Object.fromEntries(declared.map((n) => [n, { type: 'string' }])), additionalProperties: { type: 'string' } },
      Item: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
    });
    const mixed = schema.typeOfKind('test', 'v1', 'Mixed');
    const others = ['a', 'Z', 'b1', 'zz', '\u{1F600}', '\uFFFF', '10', '9', 'é2', ''];
    const leaves = (names: readonly string[]): Obj => Object.fromEntries(names.map((n) => [n, 'x']));
    const values: Obj[] = [
      leaves(declared.slice(0, 6)),
      leaves([...declared].reverse()),
      { ...leaves(others.slice(0, 4)), zeta: 'x', alpha: 'x' },
      { ...Object.fromEntries(others.map((n) => [n, { k: 'v' }])), ...leaves(declared.slice(0, 10)) },
      { spec: { ...leaves(others), ...leaves(declared.slice(3, 9)) } },
      { spec: leaves([...declared, ...others].reverse()) },
      { inner: { ...leaves(others.slice(0, 5)), ...leaves(declared.slice(0, 5)) } },
      { inner: leaves([...declared, ...others].reverse()) },
      { list: [{ name: 'b', value: 'v' }] },
      { list: [{ name: 'a' }] },
    ];
    const cuts = [NONE, FieldSet.of([f('list'), keyElement([['name', 'b']])]), FieldSet.of([f('zz')], [f('spec'), f('a')], [f('inner'), f('zeta')])];
    const drops = [NONE, FieldSet.of([f('list'), keyElement([['name', 'b']])], [f('alpha')], [f('spec'), f('b10')]), FieldSet.of([f('list')], [f('10'), f('k')])];
    for (const v of values) for (const cut of cuts) for (const drop of drops) assertSame(schema, v, mixed, cut, drop);
    // More names than a map type keeps of the ones it does not declare.
    assertSame(s, { metadata: { labels: Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`l${(i * 7919) % 1500}`, 'v'])) } }, podType);
  });
});
