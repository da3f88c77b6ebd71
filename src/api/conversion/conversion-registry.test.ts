import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConversionRegistry } from './conversion-registry.js';
import { noneConversion, type KindConversion } from './kind-conversion.js';
import { renamedFieldsConversion } from './renamed-fields.js';
import { newPrng, testSeed } from './testing/prng.js';
import { checkRoundTrips, RoundTripError } from './testing/round-trip.js';

const widgetV1 = renamedFieldsConversion({ group: 'example.com', version: 'v1', kind: 'Widget' }, ['metadata', ['size', 'width'], 'color']);
const widgetV2 = renamedFieldsConversion({ group: 'example.com', version: 'v2', kind: 'Widget' }, ['metadata', 'color', 'width']);
const widgets: KindConversion = { internal: 'example.Widget', storageVersion: { group: 'example.com', version: 'v2', kind: 'Widget' }, versions: [widgetV1, widgetV2] };

describe('ConversionRegistry', () => {
  it('converts between versions through the internal form, in the target version’s field order', () => {
    const registry = new ConversionRegistry([widgets]);
    const v1 = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, color: 'red', size: 3, extra: true };
    const v2 = registry.convert(v1, { group: 'example.com', version: 'v2', kind: 'Widget' });
    assert.deepEqual(v2, { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'w' }, color: 'red', width: 3, extra: true });
    assert.deepEqual(Object.keys(v2), ['apiVersion', 'kind', 'metadata', 'color', 'width', 'extra']);
    assert.deepEqual(registry.convert(v2, { group: 'example.com', version: 'v1', kind: 'Widget' }), v1);
  });

  it('gives each served version a codec onto the storage version', () => {
    const registry = new ConversionRegistry([widgets]);
    const codec = registry.codec({ group: 'example.com', version: 'v1', kind: 'Widget' })!;
    assert.deepEqual(codec.storage, { group: 'example.com', version: 'v2', kind: 'Widget' });
    const stored = codec.toStorage(codec.toInternal({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {}, size: 1 }));
    assert.deepEqual(stored, { apiVersion: 'example.com/v2', kind: 'Widget', metadata: {}, width: 1 });
    assert.deepEqual(codec.storageToServed(stored), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: {}, size: 1 });
    assert.equal(registry.codec({ group: 'example.com', version: 'v3', kind: 'Widget' }), undefined);
    assert.equal(registry.has({ group: 'example.com', version: 'v2', kind: 'Widget' }), true);
    assert.deepEqual(registry.versionsOf('example.Widget').map((v) => v.version), ['v1', 'v2']);
  });

  it('drops a field a version does not know when its name is taken by a renamed one', () => {
    const internal = widgetV1.toInternal({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {}, size: 1, width: 9 });
    assert.deepEqual(internal, { metadata: {}, width: 1 });
  });

  it('rejects a storage version that is not one of the versions, a version registered twice, and unknown or foreign conversions', () => {
    assert.throws(
      () => new ConversionRegistry([{ ...widgets, storageVersion: { group: 'example.com', version: 'v9', kind: 'Widget' } }]),
      /example.Widget: storage version example.com\/v9#Widget is not one of its versions/,
    );
    assert.throws(() => new ConversionRegistry([widgets, widgets]), /conversion of example.com\/v1#Widget registered twice/);
    const registry = new ConversionRegistry([widgets, noneConversion('example.com', 'Gadget', ['v1beta1', 'v1'], 'v1')]);
    assert.throws(() => registry.convert({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: {} }, widgetV2), /no conversion registered for example.com\/v1#Thing/);
    assert.throws(
      () => registry.convert({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {} }, { group: 'example.com', version: 'v7', kind: 'Widget' }),
      /no conversion registered for example.com\/v7#Widget/,
    );
    assert.throws(
      () => registry.convert({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {} }, { group: 'example.com', version: 'v1', kind: 'Gadget' }),
      /example.com\/v1#Widget and example.com\/v1#Gadget have different internal forms/,
    );
  });

  it('serves a custom resource’s versions with the None strategy: only apiVersion changes', () => {
    const registry = new ConversionRegistry([noneConversion('example.com', 'Gadget', ['v1beta1', 'v1'], 'v1')]);
    const beta = { apiVersion: 'example.com/v1beta1', kind: 'Gadget', metadata: { name: 'g' }, spec: { a: 1 } };
    assert.deepEqual(registry.convert(beta, { group: 'example.com', version: 'v1', kind: 'Gadget' }), { ...beta, apiVersion: 'example.com/v1' });
    const prng = newPrng(testSeed(7));
    const random = (): Record<string, unknown> => ({ metadata: { name: `g${prng.int(100)}` }, spec: { n: prng.int(10), s: prng.pick(['a', 'b']) } });
    checkRoundTrips(registry, [{ gvk: { group: 'example.com', version: 'v1beta1', kind: 'Gadget' }, generate: random }, { gvk: { group: 'example.com', version: 'v1', kind: 'Gadget' }, generate: random }], { prng, iterations: 50 });
  });
});

describe('checkRoundTrips', () => {
  it('names the seed of an object a lossy conversion does not bring back', () => {
    const lossy: KindConversion = {
      internal: 'example.Lossy',
      storageVersion: { group: 'example.com', version: 'v1', kind: 'Lossy' },
      versions: [
        renamedFieldsConversion({ group: 'example.com', version: 'v1', kind: 'Lossy' }, ['metadata', 'keep', 'lose']),
        // v2 forgets `lose`, like a conversion missing a field.
        { ...renamedFieldsConversion({ group: 'example.com', version: 'v2', kind: 'Lossy' }, ['metadata', 'keep']), toInternal: ({ metadata, keep }) => ({ metadata, keep }) },
      ],
    };
    const registry = new ConversionRegistry([lossy]);
    const prng = newPrng(42);
    const generate = (): Record<string, unknown> => ({ metadata: {}, keep: 1, lose: 2 });
    assert.throws(
      () => checkRoundTrips(registry, [{ gvk: lossy.versions[0]!, generate }, { gvk: lossy.versions[1]!, generate }], { prng, iterations: 1 }),
      (e: unknown) => e instanceof RoundTripError && /seed 42, iteration 0; replay with K8TS_TEST_SEED=42/.test(e.message),
    );
  });

  it('notices a conversion that mutates its argument', () => {
    const mutating = renamedFieldsConversion({ group: 'example.com', version: 'v1', kind: 'M' }, ['metadata']);
    const registry = new ConversionRegistry([
      {
        internal: 'example.M',
        storageVersion: mutating,
        versions: [{ ...mutating, fromInternal: (i) => mutating.fromInternal(i), toInternal: (o) => { o.metadata.name = 'changed'; return mutating.toInternal(o); } }],
      },
    ]);
    assert.throws(
      () => checkRoundTrips(registry, [{ gvk: mutating, generate: () => ({ metadata: { name: 'x' } }) }], { prng: newPrng(1), iterations: 1 }),
      RoundTripError,
    );
  });
});

describe('newPrng', () => {
  it('repeats its sequence for a seed, and testSeed reads K8TS_TEST_SEED', () => {
    const a = newPrng(123);
    const b = newPrng(123);
    const seqA = Array.from({ length: 5 }, () => a.int(1000));
    assert.deepEqual(Array.from({ length: 5 }, () => b.int(1000)), seqA);
    assert.notDeepEqual(Array.from({ length: 5 }, () => newPrng(124).int(1000)), seqA);
    assert.throws(() => a.pick([]), /pick from an empty list/);
    const saved = process.env.K8TS_TEST_SEED;
    try {
      process.env.K8TS_TEST_SEED = '99';
      assert.equal(testSeed(1), 99);
      process.env.K8TS_TEST_SEED = 'x';
      assert.throws(() => testSeed(1), /K8TS_TEST_SEED must be an integer, not "x"/);
      process.env.K8TS_TEST_SEED = '';
      assert.equal(testSeed(1), 1);
    } finally {
      if (saved === undefined) delete process.env.K8TS_TEST_SEED;
      else process.env.K8TS_TEST_SEED = saved;
    }
  });
});
