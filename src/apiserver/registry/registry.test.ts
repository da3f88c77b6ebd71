import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversionRegistry } from '../../api/conversion/conversion-registry.js';
import { noneConversion } from '../../api/conversion/kind-conversion.js';
import { ALL_VERBS, Scheme, type GroupVersionKind, type ResourceInfo } from '../../api/scheme.js';
import { newMemoryStorage } from '../../storage/memory/memory-storage.js';
import { ObjectStorage } from './generic/object-storage.js';
import { plainStrategy } from './generic/strategy.js';
import { definitionKey, Registry } from './registry.js';

const widget = (version: string, storageVersion?: GroupVersionKind): ResourceInfo => ({
  group: 'example.com',
  version,
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  namespaced: false,
  shortNames: [],
  categories: [],
  verbs: ALL_VERBS,
  subresources: [],
  listKind: 'WidgetList',
  ...(storageVersion !== undefined ? { storageVersion } : {}),
});

const V1 = { group: 'example.com', version: 'v1', kind: 'Widget' };
const definitions = new Map([[definitionKey('example.com', 'Widget'), { strategy: plainStrategy, validateName: () => [] }]]);

function registry(resources: ResourceInfo[], conversions: ConversionRegistry) {
  const backing = newMemoryStorage();
  const r = new Registry({ scheme: new Scheme(resources), storage: new ObjectStorage(backing), prefix: '/registry', definitions, watchCache: false, conversions });
  return { backing, registry: r };
}

describe('Registry with a kind served in several versions', () => {
  it('serves a custom-resource-like kind in two versions from one storage location (None conversion)', async () => {
    const conversions = new ConversionRegistry([noneConversion('example.com', 'Widget', ['v1beta1', 'v1'], 'v1')]);
    const { backing, registry: r } = registry([widget('v1'), widget('v1beta1', V1)], conversions);
    const beta = r.store('example.com', 'v1beta1', 'widgets');
    const created = await beta.create(undefined, { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
    assert.equal(created.apiVersion, 'example.com/v1beta1');
    const raw = await backing.get('/registry/widgets/w');
    assert.equal((JSON.parse(Buffer.from(raw!.value).toString('utf8')) as { apiVersion: string }).apiVersion, 'example.com/v1');
    const read = await r.store('example.com', 'v1', 'widgets').get(undefined, 'w');
    assert.deepEqual(read.spec, { size: 1 });
    assert.equal(read.apiVersion, 'example.com/v1');
  });

  it('refuses a scheme and conversions that disagree on the storage version, or a storage version not served', () => {
    const conversions = () => new ConversionRegistry([noneConversion('example.com', 'Widget', ['v1beta1', 'v1'], 'v1')]);
    assert.throws(
      () => registry([widget('v1'), widget('v1beta1')], conversions()),
      /example.com\/v1beta1#Widget: the scheme says it is stored as itself, its conversions as example.com\/v1#Widget/,
    );
    assert.throws(
      () => registry([widget('v1', { group: 'example.com', version: 'v1beta1', kind: 'Widget' }), widget('v1beta1', V1)], conversions()),
      /example.com\/v1#Widget: the scheme says it is stored as example.com\/v1beta1#Widget, its conversions as itself/,
    );
    assert.throws(() => registry([widget('v1beta1', V1)], conversions()), /example.com\/v1beta1#Widget: its storage version example.com\/v1#Widget is not served/);
  });
});
