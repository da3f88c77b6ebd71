import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../machinery/meta.js';
import { newMemoryStorage } from '../../../storage/memory/memory-storage.js';
import { encodeJsonBytes } from '../../server/json-memo.js';
import { encode, encodeForCreate, ObjectStorage } from './object-storage.js';

const pod = (): KubeObject =>
  ({
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name: 'p', namespace: 'ns', labels: { 'ä': '€' }, uid: 'u', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }] },
    spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'x', value: '"quoted"\n' }] }], dropped: undefined },
    status: { phase: 'Pending' },
  }) as unknown as KubeObject;

describe('encodeForCreate', () => {
  const cases: Array<[string, () => KubeObject]> = [
    ['a pod', pod],
    ['metadata first and empty', () => ({ metadata: {}, kind: 'ConfigMap', apiVersion: 'v1', data: { a: 'b' } }) as KubeObject],
    ['metadata last', () => ({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: '{"metadata":1}' }, metadata: { name: 'c' } }) as KubeObject],
    ['metadata last and empty', () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }) as KubeObject],
    ['metadata with an integer key and an undefined value last', () => ({ kind: 'X', metadata: { name: 'n', 7: 'seven', uid: undefined }, b: 1 }) as unknown as KubeObject],
  ];
  for (const [what, make] of cases) {
    it(`stores the bytes of encode and gives JSON.stringify of the object once resourceVersion is set: ${what}`, () => {
      const object = make();
      const encoded = encodeForCreate(object);
      assert.equal(encoded.bytes.toString('utf8'), encode(object).toString('utf8'));
      const json = encoded.jsonWithResourceVersion(42);
      object.metadata.resourceVersion = '42';
      assert.equal(json?.toString('utf8'), JSON.stringify(object));
    });
  }

  it('gives no JSON for an object whose metadata already has resourceVersion or selfLink (its key order would differ)', () => {
    for (const extra of [{ resourceVersion: '3' }, { selfLink: '/x' }]) {
      const object = { ...pod(), metadata: { name: 'p', ...extra, namespace: 'ns' } } as KubeObject;
      const encoded = encodeForCreate(object);
      assert.equal(encoded.bytes.toString('utf8'), encode(object).toString('utf8'));
      assert.equal(encoded.jsonWithResourceVersion(1), undefined);
    }
  });

  it('gives no JSON when the object holds the mark for resourceVersion, and still stores encode', () => {
    const mark = '\u0000k8ts:resourceVersion\u0000';
    const objects = [
      { ...pod(), data: { [mark]: 0 } },
      { ...pod(), metadata: { ...pod().metadata, [mark]: 0 } },
      { ...pod(), metadata: { ...pod().metadata, annotations: { [mark]: 0 } } },
    ] as unknown as KubeObject[];
    for (const object of objects) {
      const encoded = encodeForCreate(object);
      assert.equal(encoded.bytes.toString('utf8'), encode(object).toString('utf8'));
      assert.equal(encoded.jsonWithResourceVersion(1), undefined);
    }
  });

  it('a create that leaves its object unchanged answers the same JSON bytes as a plain stringify', async () => {
    const store = new ObjectStorage(newMemoryStorage());
    const created = await store.create('/registry/pods/ns/p', pod(), { unchangedAfterWrite: true });
    assert.equal(encodeJsonBytes(created).toString('utf8'), JSON.stringify(created));
    const plain = await store.create('/registry/pods/ns/q', { ...pod(), metadata: { name: 'q', namespace: 'ns' } });
    assert.equal(encodeJsonBytes(plain).toString('utf8'), JSON.stringify(plain));
    assert.deepEqual(await store.get('/registry/pods/ns/p'), JSON.parse(JSON.stringify(created)));
  });
});
