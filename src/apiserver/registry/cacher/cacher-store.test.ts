import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../api/resources.js';
import { newMemoryStorage } from '../../../storage/memory/memory-storage.js';
import { withDeadline } from '../../../storage/testing/conformance.js';
import { builtinDefinitions } from '../builtin.js';
import { ObjectStorage } from '../generic/object-storage.js';
import { Registry } from '../registry.js';

/** The generic store of config maps over watch caches with a short bookmark period. */
async function configmaps() {
  const registry = new Registry({
    scheme: newBuiltinScheme(),
    storage: new ObjectStorage(newMemoryStorage()),
    prefix: '/registry',
    definitions: builtinDefinitions(),
    watchCache: { bookmarkIntervalMs: 20 },
  });
  await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return { registry, store: registry.store('', 'v1', 'configmaps') };
}

describe('watch cache behind the generic store', () => {
  it('gives a watch that asked for bookmarks typed BOOKMARK events at the current resourceVersion', async () => {
    const { registry, store } = await configmaps();
    const created = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    const watch = await store.watch('default', { resourceVersion: created.metadata.resourceVersion!, allowWatchBookmarks: true });
    const it = watch[Symbol.asyncIterator]();
    const first = await withDeadline(it.next(), 5000, 'a bookmark');
    assert.equal(first.value?.type, 'BOOKMARK');
    assert.equal(first.value?.object.apiVersion, 'v1');
    assert.equal(first.value?.object.kind, 'ConfigMap');
    assert.ok(Number(first.value?.object.metadata.resourceVersion) >= Number(created.metadata.resourceVersion));
    watch.cancel();
    registry.stop();
  });

  it('serves resourceVersion=0 and NotOlderThan lists, and a watch without bookmarks gets none', async () => {
    const { registry, store } = await configmaps();
    const created = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    assert.deepEqual((await store.list('default', { resourceVersion: '0' })).items.map((o) => o.metadata.name), ['a']);
    const list = await store.list('default', { resourceVersion: created.metadata.resourceVersion!, resourceVersionMatch: 'NotOlderThan' });
    assert.deepEqual(list.items.map((o) => o.metadata.name), ['a']);
    const watch = await store.watch('default', { resourceVersion: created.metadata.resourceVersion! });
    const it = watch[Symbol.asyncIterator]();
    const next = it.next();
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
    assert.equal((await withDeadline(next, 5000, 'an event')).value?.type, 'ADDED');
    watch.cancel();
    registry.stop();
  });
});
