import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../machinery/meta.js';
import { newMemoryStorage } from '../../../storage/memory/memory-storage.js';
import { withDeadline } from '../../../storage/testing/conformance.js';
import { isStorageError } from '../../../storage/errors.js';
import { ObjectStorage, type ObjectEvent, type ObjectWatch } from '../generic/object-storage.js';
import { Cacher } from './cacher.js';

const pod = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels } });

function setup(capacity = 100) {
  const storage = newMemoryStorage();
  const objects = new ObjectStorage(storage);
  const cacher = new Cacher(objects, '/registry/pods/', { capacity });
  return { storage, objects, cacher };
}

async function take(watch: ObjectWatch, n: number): Promise<ObjectEvent[]> {
  const out: ObjectEvent[] = [];
  const it = watch[Symbol.asyncIterator]();
  return withDeadline(
    (async () => {
      while (out.length < n) {
        const r = await it.next();
        if (r.done === true) throw new Error(`ended after ${out.length}`);
        out.push(r.value);
      }
      return out;
    })(),
    5000,
    `${n} events`,
  );
}



describe('watch cache', () => {
  it('serves a consistent list from memory: a write acknowledged before the list is in it', async () => {
    const { objects, cacher } = setup();
    await objects.create('/registry/pods/ns/a', pod('a'));
    assert.deepEqual((await cacher.list('/registry/pods/')).items.map((o) => o.metadata.name), ['a']);
    const b = await cacher.create('/registry/pods/ns/b', pod('b'));
    const list = await cacher.list('/registry/pods/ns/');
    assert.deepEqual(list.items.map((o) => o.metadata.name), ['a', 'b']);
    assert.equal(list.revision, Number(b.metadata.resourceVersion));
    cacher.stop();
  });

  it('answers a consistent list from storage while a write to another resource is newer than anything it saw', async () => {
    const { objects, cacher } = setup();
    await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.list('/registry/pods/');
    // A write outside the cache's prefix: storage moves on, the cache hears nothing of it.
    await objects.create('/registry/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const current = await objects.currentRevision();
    const list = await cacher.list('/registry/pods/');
    assert.deepEqual(list.items.map((o) => o.metadata.name), ['a']);
    assert.equal(list.revision, current, 'the list is read at the current revision, not the cache\'s older one');
    cacher.stop();
  });

  it('filters lists with the predicate and the key prefix', async () => {
    const { cacher } = setup();
    await cacher.create('/registry/pods/ns/a', pod('a', { app: 'x' }));
    await cacher.create('/registry/pods/ns/b', pod('b'));
    await cacher.create('/registry/pods/other/c', { ...pod('c', { app: 'x' }), metadata: { name: 'c', namespace: 'other', labels: { app: 'x' } } });
    const list = await cacher.list('/registry/pods/ns/', { predicate: (o) => o.metadata.labels?.app === 'x' });
    assert.deepEqual(list.items.map((o) => o.metadata.name), ['a']);
    cacher.stop();
  });

  it('replays a watch from a revision in its window, then goes live, with no gap or duplicate', async () => {
    const { cacher } = setup();
    await cacher.list('/registry/pods/');
    const a = await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.create('/registry/pods/ns/b', pod('b'));
    await cacher.list('/registry/pods/'); // the cache has seen both
    const watch = cacher.watch('/registry/pods/', Number(a.metadata.resourceVersion));
    const pending = take(watch, 3);
    await cacher.delete('/registry/pods/ns/a');
    await cacher.create('/registry/pods/ns/c', pod('c'));
    const events = await pending;
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED b', 'DELETED a', 'ADDED c']);
    const revisions = events.map((e) => e.revision);
    assert.deepEqual([...revisions].sort((x, y) => x - y), revisions);
    watch.cancel();
    cacher.stop();
  });

  it('turns selector transitions into ADDED and DELETED for a filtered watcher', async () => {
    const { cacher } = setup();
    const created = await cacher.create('/registry/pods/ns/a', pod('a'));
    const watch = cacher.watch('/registry/pods/', Number(created.metadata.resourceVersion), (o) => o.metadata.labels?.app === 'x');
    const pending = take(watch, 2);
    const labelled = await cacher.guaranteedUpdate('/registry/pods/ns/a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { app: 'x' } } }));
    await cacher.guaranteedUpdate('/registry/pods/ns/a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: {} } }));
    const events = await pending;
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
    assert.equal(events[0]!.object.metadata.resourceVersion, labelled.object.metadata.resourceVersion);
    assert.equal(events[1]!.object.metadata.labels?.app, 'x', 'the DELETED event carries the last state that matched');
    watch.cancel();
    cacher.stop();
  });

  it('sends a watch older than its window to storage, which answers Compacted once history is gone', async () => {
    const { storage, cacher } = setup(3);
    const first = await cacher.create('/registry/pods/ns/p0', pod('p0'));
    await cacher.list('/registry/pods/');
    for (let i = 1; i < 10; i++) await cacher.create(`/registry/pods/ns/p${i}`, pod(`p${i}`));
    await cacher.list('/registry/pods/');
    // Still in storage's history: served by storage.
    const old = cacher.watch('/registry/pods/', Number(first.metadata.resourceVersion));
    assert.equal((await take(old, 9)).length, 9);
    old.cancel();
    await storage.compact(await storage.currentRevision());
    const gone = cacher.watch('/registry/pods/', Number(first.metadata.resourceVersion));
    await assert.rejects(take(gone, 1), (e: unknown) => isStorageError(e, 'Compacted'));
    cacher.stop();
  });

  it('ends its watchers when stopped', async () => {
    const { cacher } = setup();
    await cacher.list('/registry/pods/');
    const watch = cacher.watch('/registry/pods/', await cacher.currentRevision());
    const it = watch[Symbol.asyncIterator]();
    const next = it.next();
    await new Promise((r) => setImmediate(r));
    cacher.stop();
    assert.equal((await withDeadline(next, 5000, 'end')).done, true);
  });

});
