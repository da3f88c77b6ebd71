import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { newMemoryStorage } from '../../storage/memory/memory-storage.js';
import { runStorageConformance, takeEvents } from '../../storage/testing/conformance.js';
import { newInstrumentedStorage } from './instrumented-storage.js';
import { REQUEST_DURATION_BUCKETS } from './request-metrics.js';
import { StorageMetrics } from './storage-metrics.js';
import { newStorageTypeResolver } from './storage-types.js';
import { findSample, findSamples, parseExposition, type Sample } from './testing/exposition.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

// The decorator is a Storage like any other: it must pass the same suite.
runStorageConformance('instrumented memory', async () => newInstrumentedStorage(newMemoryStorage(), new StorageMetrics(new Registry())));

describe('instrumented storage', () => {
  const typeOf = newStorageTypeResolver('/registry', [
    { path: 'pods', group: '', resource: 'pods' },
    { path: 'deployments', group: 'apps', resource: 'deployments' },
  ]);

  async function setup(): Promise<{ registry: Registry; storage: ReturnType<typeof newInstrumentedStorage>; scrape: () => Promise<Sample[]> }> {
    const registry = new Registry();
    const storage = newInstrumentedStorage(newMemoryStorage(), new StorageMetrics(registry), typeOf);
    return { registry, storage, scrape: async () => parseExposition(await registry.metrics()) };
  }

  it('times each operation by resource type in etcd_request_duration_seconds, with upstream buckets', async () => {
    const { storage, scrape } = await setup();
    const pod = await storage.create('/registry/pods/default/web', enc('a'));
    await storage.get('/registry/pods/default/web');
    await storage.get('/registry/pods/default/web');
    await storage.update('/registry/pods/default/web', enc('b'), pod.modRevision);
    await storage.list('/registry/deployments/');
    await storage.delete('/registry/pods/default/web');
    await storage.currentRevision();
    await storage.compact(1);
    const samples = await scrape();
    const count = (operation: string, type: string): number | undefined =>
      findSample(samples, 'etcd_request_duration_seconds_count', { operation, type })?.value;
    assert.equal(count('create', 'pods'), 1);
    assert.equal(count('get', 'pods'), 2);
    assert.equal(count('update', 'pods'), 1);
    assert.equal(count('delete', 'pods'), 1);
    assert.equal(count('list', 'deployments.apps'), 1);
    assert.equal(count('getCurrentResourceVersion', ''), 1);
    assert.equal(count('compact', ''), 1);
    assert.equal(findSample(samples, 'etcd_requests_total', { operation: 'get', type: 'pods' })?.value, 2);
    const buckets = findSamples(samples, 'etcd_request_duration_seconds_bucket', { operation: 'get', type: 'pods' }).map((s) => s.labels.le);
    assert.deepEqual(buckets, [...REQUEST_DURATION_BUCKETS.map(String), '+Inf']);
    assert.equal(findSamples(samples, 'etcd_request_errors_total').length, 0, 'no failures yet');
  });

  it('counts failures, but not the expected answers KeyNotFound, KeyExists and Conflict', async () => {
    const { storage, scrape } = await setup();
    const kv = await storage.create('/registry/pods/default/a', enc('a'));
    await assert.rejects(storage.create('/registry/pods/default/a', enc('b')), { code: 'KeyExists' });
    await assert.rejects(storage.update('/registry/pods/default/a', enc('b'), kv.modRevision + 100), { code: 'Conflict' });
    await assert.rejects(storage.delete('/registry/pods/default/none'), { code: 'KeyNotFound' });
    await storage.update('/registry/pods/default/a', enc('c'), kv.modRevision);
    await storage.compact(await storage.currentRevision());
    await assert.rejects(storage.list('/registry/pods/', { revision: kv.modRevision }), { code: 'Compacted' });
    await storage.close();
    await assert.rejects(storage.get('/registry/pods/default/a'), { code: 'Closed' });
    const samples = await scrape();
    assert.equal(findSample(samples, 'etcd_requests_total', { operation: 'create', type: 'pods' })?.value, 2);
    assert.equal(findSample(samples, 'etcd_request_errors_total', { operation: 'create' }), undefined);
    assert.equal(findSample(samples, 'etcd_request_errors_total', { operation: 'update' }), undefined);
    assert.equal(findSample(samples, 'etcd_request_errors_total', { operation: 'delete' }), undefined);
    assert.equal(findSample(samples, 'etcd_request_errors_total', { operation: 'list', type: 'pods' })?.value, 1);
    assert.equal(findSample(samples, 'etcd_request_errors_total', { operation: 'get', type: 'pods' })?.value, 1);
    assert.equal(findSample(samples, 'etcd_request_duration_seconds_count', { operation: 'list', type: 'pods' })?.value, 1, 'failures are timed too');
  });

  it('passes watches through untouched', async () => {
    const { storage, scrape } = await setup();
    const watch = storage.watch('/registry/pods/', 0);
    try {
      await storage.create('/registry/pods/default/a', enc('a'));
      const [event] = await takeEvents(watch, 1);
      assert.equal(event?.type, 'PUT');
    } finally {
      watch.cancel();
    }
    const samples = await scrape();
    assert.equal(findSamples(samples, 'etcd_requests_total', { operation: 'watch' }).length, 0);
  });

  it('without a resolver, types a key by its first segment under the prefix', async () => {
    const registry = new Registry();
    const storage = newInstrumentedStorage(newMemoryStorage(), new StorageMetrics(registry));
    await storage.get('/registry/configmaps/default/x');
    await storage.list('/registry/leases/');
    const samples = parseExposition(await registry.metrics());
    assert.equal(findSample(samples, 'etcd_requests_total', { operation: 'get', type: 'configmaps' })?.value, 1);
    assert.equal(findSample(samples, 'etcd_requests_total', { operation: 'list', type: 'leases' })?.value, 1);
  });
});
