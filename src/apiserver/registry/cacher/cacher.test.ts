import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../machinery/meta.js';
import { compacted, isStorageError } from '../../../storage/errors.js';
import type { Storage, StorageEvent, StorageProgress, StorageWatch } from '../../../storage/interface.js';
import { newMemoryStorage } from '../../../storage/memory/memory-storage.js';
import { withDeadline } from '../../../storage/testing/conformance.js';
import { ObjectStorage, type ObjectEvent, type ObjectListOptions, type ObjectListResult, type ObjectWatch } from '../generic/object-storage.js';
import { Cacher, type CacherOptions } from './cacher.js';

const pod = (name: string, labels: Record<string, string> = {}, namespace = 'ns'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } });

/**
 * Memory storage that counts storage watches, can make their progress
 * requests go unanswered, and can break the running watches with an error.
 */
class ControlledStorage {
  readonly inner = newMemoryStorage();
  watchesOpened = 0;
  storageLists = 0;
  failLists = false;
  answerProgress = true;
  private readonly breakers = new Set<(e: unknown) => void>();

  readonly storage: Storage = new Proxy(this.inner, {
    get: (target, name, receiver) => {
      if (name === 'watch') return (prefix: string, from: number) => this.watch(prefix, from);
      if (name === 'list') {
        return (...args: Parameters<Storage['list']>) => {
          this.storageLists++;
          // Paged lists with a limit are the cache's own (the object storage under test lists without one here).
          if (this.failLists && args[1]?.limit !== undefined) return Promise.reject(new Error('storage is down'));
          return target.list(...args);
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });

  /** Make every running watch throw `error`. */
  breakWatches(error: unknown): void {
    for (const b of [...this.breakers]) b(error);
  }

  private watch(prefix: string, from: number): StorageWatch {
    this.watchesOpened++;
    const inner = this.inner.watch(prefix, from);
    let fail!: (e: unknown) => void;
    const broken = new Promise<never>((_, reject) => (fail = reject));
    broken.catch(() => {});
    this.breakers.add(fail);
    const breakers = this.breakers;
    return {
      cancel: () => {
        breakers.delete(fail);
        inner.cancel();
      },
      requestProgress: () => {
        if (this.answerProgress) inner.requestProgress();
      },
      async *[Symbol.asyncIterator](): AsyncIterator<StorageEvent | StorageProgress> {
        const it = inner[Symbol.asyncIterator]();
        try {
          for (;;) {
            const next = await Promise.race([it.next(), broken]);
            if (next.done === true) return;
            yield next.value;
          }
        } finally {
          breakers.delete(fail);
          inner.cancel();
        }
      },
    };
  }
}

/** Object storage that counts the lists and watches it serves (what the cache did not). */
class CountingObjectStorage extends ObjectStorage {
  lists = 0;
  watches = 0;
  override list(prefix: string, options?: ObjectListOptions): Promise<ObjectListResult> {
    this.lists++;
    return super.list(prefix, options);
  }
  override watch(prefix: string, from: number, predicate?: (o: KubeObject) => boolean): ObjectWatch {
    this.watches++;
    return super.watch(prefix, from, predicate);
  }
}

function setup(options: CacherOptions = {}) {
  const controlled = new ControlledStorage();
  const objects = new CountingObjectStorage(controlled.storage);
  const cacher = new Cacher(objects, '/registry/pods/', options);
  return { controlled, storage: controlled.inner, objects, cacher };
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

/** Read until the watch ends; fails at the deadline if it does not. */
async function drain(watch: ObjectWatch): Promise<ObjectEvent[]> {
  const out: ObjectEvent[] = [];
  await withDeadline(
    (async () => {
      for await (const e of watch) out.push(e);
    })(),
    5000,
    'the watch to end',
  );
  return out;
}

const names = (r: { items: KubeObject[] }): (string | undefined)[] => r.items.map((o) => o.metadata.name);

describe('watch cache', () => {
  it('serves a consistent list from memory: a write acknowledged before the list is in it', async () => {
    const { objects, cacher } = setup();
    await objects.create('/registry/pods/ns/a', pod('a'));
    assert.deepEqual(names(await cacher.list('/registry/pods/')), ['a']);
    const b = await cacher.create('/registry/pods/ns/b', pod('b'));
    const listsBefore = objects.lists;
    const list = await cacher.list('/registry/pods/ns/');
    assert.deepEqual(names(list), ['a', 'b']);
    assert.equal(list.revision, Number(b.metadata.resourceVersion));
    assert.equal(objects.lists, listsBefore, 'storage was not listed');
    cacher.stop();
  });

  it('serves a consistent list from memory after a progress notification when another resource moved storage on', async () => {
    const { objects, cacher } = setup();
    await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.list('/registry/pods/');
    // A write outside the cache's prefix: only progress tells the cache it has seen revision `current`.
    await objects.create('/registry/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const current = await objects.currentRevision();
    const listsBefore = objects.lists;
    const list = await cacher.list('/registry/pods/');
    assert.deepEqual(names(list), ['a']);
    assert.ok(list.revision >= current, 'the list is at least at the current revision');
    assert.equal(objects.lists, listsBefore, 'storage was not listed');
    cacher.stop();
  });

  it('falls back to storage when progress does not come in time, and then goes to storage at once for a while', async () => {
    const { controlled, objects, cacher } = setup({ freshnessTimeoutMs: 30 });
    await cacher.list('/registry/pods/');
    controlled.answerProgress = false;
    await objects.create('/registry/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const current = await objects.currentRevision();
    const listsBefore = objects.lists;
    const list = await cacher.list('/registry/pods/');
    assert.equal(list.revision, current);
    assert.equal(objects.lists, listsBefore + 1, 'storage answered');
    await cacher.list('/registry/pods/');
    assert.equal(objects.lists, listsBefore + 2);
    cacher.stop();
  });

  it('waits only briefly for progress until storage has been seen to answer it', async () => {
    const { controlled, objects, cacher } = setup({ freshnessTimeoutMs: 600_000, progressProbeMs: 20 });
    controlled.answerProgress = false; // an etcd with its default 10-minute progress-notify interval
    await cacher.list('/registry/pods/', { notOlderThan: 0 });
    await objects.create('/registry/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const current = await objects.currentRevision();
    const listsBefore = objects.lists;
    const list = await withDeadline(cacher.list('/registry/pods/'), 5000, 'a list answered by storage after the probe');
    assert.equal(list.revision, current);
    assert.equal(objects.lists, listsBefore + 1);
    cacher.stop();
  });

  it('serves resourceVersion=0 and NotOlderThan lists from memory, without asking for progress', async () => {
    const { controlled, objects, cacher } = setup({ freshnessTimeoutMs: 5000 });
    const a = await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.list('/registry/pods/');
    controlled.answerProgress = false;
    await objects.create('/registry/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const listsBefore = objects.lists;
    assert.deepEqual(names(await cacher.list('/registry/pods/', { notOlderThan: 0 })), ['a']);
    assert.deepEqual(names(await cacher.list('/registry/pods/', { notOlderThan: Number(a.metadata.resourceVersion) })), ['a']);
    assert.equal(objects.lists, listsBefore);
    cacher.stop();
  });

  it('pages a list from memory; the next page is read from storage at the same revision', async () => {
    const { objects, cacher } = setup();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await cacher.create(`/registry/pods/ns/${n}`, pod(n));
    const first = await cacher.list('/registry/pods/', { limit: 2 });
    assert.deepEqual(names(first), ['a', 'b']);
    assert.equal(first.continueKey, '/registry/pods/ns/b');
    await cacher.delete('/registry/pods/ns/c'); // after the snapshot: the next page still has c
    const listsBefore = objects.lists;
    const second = await cacher.list('/registry/pods/', { limit: 10, revision: first.revision, continueKey: first.continueKey! });
    assert.deepEqual(names(second), ['c', 'd', 'e']);
    assert.equal(second.continueKey, undefined);
    assert.equal(objects.lists, listsBefore + 1);
    cacher.stop();
  });

  it('filters lists with the predicate and the namespace prefix', async () => {
    const { cacher } = setup();
    await cacher.create('/registry/pods/ns/a', pod('a', { app: 'x' }));
    await cacher.create('/registry/pods/ns/b', pod('b'));
    await cacher.create('/registry/pods/ns2/c', pod('c', { app: 'x' }, 'ns2'));
    await cacher.create('/registry/pods/n/d', pod('d', { app: 'x' }, 'n'));
    const list = await cacher.list('/registry/pods/ns/', { predicate: (o) => o.metadata.labels?.app === 'x' });
    assert.deepEqual(names(list), ['a']);
    assert.deepEqual(names(await cacher.list('/registry/pods/')), ['d', 'a', 'b', 'c']);
    cacher.stop();
  });

  it('replays a watch from a revision in its history, then goes live, with no gap or duplicate', async () => {
    const { objects, cacher } = setup();
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
    assert.equal(objects.watches, 0, 'no watch went to storage');
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

  it('keeps at most maxEvents changes: a watch from before them goes to storage, which answers Compacted once history is gone', async () => {
    const { storage, objects, cacher } = setup({ maxEvents: 3 });
    const first = await cacher.create('/registry/pods/ns/p0', pod('p0'));
    await cacher.list('/registry/pods/');
    for (let i = 1; i < 10; i++) await cacher.create(`/registry/pods/ns/p${i}`, pod(`p${i}`));
    await cacher.list('/registry/pods/');
    const old = cacher.watch('/registry/pods/', Number(first.metadata.resourceVersion));
    assert.equal((await take(old, 9)).length, 9);
    assert.equal(objects.watches, 1, 'storage served it');
    old.cancel();
    await storage.compact(await storage.currentRevision());
    const gone = cacher.watch('/registry/pods/', Number(first.metadata.resourceVersion));
    await assert.rejects(take(gone, 1), (e: unknown) => isStorageError(e, 'Compacted'));
    cacher.stop();
  });

  it('keeps changes for historyMs: older ones are dropped as time passes', async () => {
    let now = 1_000_000;
    const { objects, cacher } = setup({ historyMs: 75_000, now: () => now });
    await cacher.list('/registry/pods/');
    const a = await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.create('/registry/pods/ns/b', pod('b'));
    await cacher.list('/registry/pods/');
    const fresh = cacher.watch('/registry/pods/', Number(a.metadata.resourceVersion) - 1);
    assert.equal((await take(fresh, 2)).length, 2);
    fresh.cancel();
    assert.equal(objects.watches, 0);
    now += 76_000;
    await cacher.create('/registry/pods/ns/c', pod('c')); // its arrival drops the expired ones
    await cacher.list('/registry/pods/');
    const stale = cacher.watch('/registry/pods/', Number(a.metadata.resourceVersion) - 1);
    assert.equal((await take(stale, 3)).length, 3);
    assert.equal(objects.watches, 1, 'the expired part of history is storage\'s to serve');
    stale.cancel();
    cacher.stop();
  });

  it('ends a watcher that falls too far behind, after the events it holds', async () => {
    const { cacher } = setup({ watcherCapacity: 2 });
    await cacher.list('/registry/pods/');
    const watch = cacher.watch('/registry/pods/', await cacher.currentRevision());
    const it = watch[Symbol.asyncIterator]();
    const first = it.next(); // registers the watcher; it reads nothing more for now
    for (let i = 0; i < 6; i++) await cacher.create(`/registry/pods/ns/p${i}`, pod(`p${i}`));
    await cacher.list('/registry/pods/');
    assert.equal(cacher.watcherCount, 0, 'the cache dropped it');
    const got = [(await first).value as ObjectEvent];
    for (;;) {
      const r = await it.next();
      if (r.done === true) break;
      got.push(r.value);
    }
    assert.deepEqual(got.map((e) => e.object.metadata.name), ['p0', 'p1', 'p2']);
    cacher.stop();
  });

  it('replays more history than a watcher may lag behind, without ending it', async () => {
    const { cacher } = setup({ watcherCapacity: 2 });
    await cacher.list('/registry/pods/');
    const from = await cacher.currentRevision();
    for (let i = 0; i < 5; i++) await cacher.create(`/registry/pods/ns/p${i}`, pod(`p${i}`));
    await cacher.list('/registry/pods/');
    const watch = cacher.watch('/registry/pods/', from);
    const it = watch[Symbol.asyncIterator]();
    const got: string[] = [];
    for (let i = 0; i < 5; i++) got.push((await withDeadline(it.next(), 5000, 'a replayed event')).value!.object.metadata.name!);
    assert.deepEqual(got, ['p0', 'p1', 'p2', 'p3', 'p4']);
    const pending = it.next();
    await cacher.create('/registry/pods/ns/live', pod('live'));
    assert.equal((await withDeadline(pending, 5000, 'the live event')).value?.object.metadata.name, 'live');
    watch.cancel();
    cacher.stop();
  });

  it('sends bookmarks periodically to the watchers that asked for them, and only to them', async () => {
    const { objects, cacher } = setup({ bookmarkIntervalMs: 20 });
    await cacher.list('/registry/pods/');
    const from = await cacher.currentRevision();
    await objects.create('/registry/configmaps/ns/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const current = await objects.currentRevision();
    await cacher.list('/registry/pods/'); // progress: the cache is at `current`
    const withBookmarks = cacher.watch('/registry/pods/', from, undefined, { bookmarks: true });
    const without = cacher.watch('/registry/pods/', from);
    const pendingWithout = take(without, 1);
    const [bookmark] = await take(withBookmarks, 1);
    assert.equal(bookmark!.type, 'BOOKMARK');
    assert.equal(bookmark!.revision, current);
    assert.equal(bookmark!.object.metadata.resourceVersion, String(current));
    await cacher.create('/registry/pods/ns/a', pod('a'));
    assert.deepEqual((await pendingWithout).map((e) => e.type), ['ADDED']);
    withBookmarks.cancel();
    without.cancel();
    cacher.stop();
  });

  it('1,000 watchers cost one storage watch', async () => {
    const { controlled, cacher } = setup();
    await cacher.list('/registry/pods/');
    const from = await cacher.currentRevision();
    const watches = Array.from({ length: 1000 }, () => cacher.watch('/registry/pods/', from));
    const pending = watches.map((w) => take(w, 1));
    await new Promise((resolve) => setImmediate(resolve));
    await cacher.create('/registry/pods/ns/a', pod('a'));
    const events = await Promise.all(pending);
    assert.ok(events.every((e) => e[0]!.object.metadata.name === 'a'));
    assert.equal(controlled.watchesOpened, 1);
    for (const w of watches) w.cancel();
    cacher.stop();
  });

  it('resumes its storage watch from its last revision when it drops, and lists again when that revision is compacted', async () => {
    const errors: string[] = [];
    const { controlled, cacher } = setup({ onError: (m) => errors.push(m) });
    await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.list('/registry/pods/');
    const from = await cacher.currentRevision();
    const watch = cacher.watch('/registry/pods/', from);
    const pending = take(watch, 1);
    await new Promise((resolve) => setImmediate(resolve));
    // A dropped storage watch: the reflector watches again from its last revision; watchers go on.
    controlled.breakWatches(new Error('connection reset'));
    await cacher.create('/registry/pods/ns/b', pod('b'));
    assert.deepEqual((await pending).map((e) => e.object.metadata.name), ['b']);
    assert.equal(controlled.storageLists, 1, 'no second list: the cache resumed its watch');
    // Compacted: the cache lists again, and ends its watchers (they watch again from their revision).
    controlled.breakWatches(compacted(from, from + 1));
    await drain(watch);
    await cacher.create('/registry/pods/ns/c', pod('c'));
    assert.deepEqual(names(await cacher.list('/registry/pods/')), ['a', 'b', 'c']);
    assert.equal(controlled.storageLists, 2, 'listed again after Compacted');
    assert.ok(controlled.watchesOpened >= 3);
    assert.ok(errors.some((m) => m.includes('watch ended with an error')));
    cacher.stop();
  });

  it('serves lists from storage while it cannot list, and cached() gives up after the timeout', async () => {
    const errors: string[] = [];
    const { controlled, objects, cacher } = setup({ freshnessTimeoutMs: 20, onError: (m) => errors.push(m) });
    await objects.create('/registry/pods/ns/a', pod('a'));
    controlled.failLists = true;
    assert.equal(await cacher.cached('/registry/pods/ns/a'), undefined);
    const listsBefore = objects.lists;
    assert.deepEqual(names(await cacher.list('/registry/pods/')), ['a']);
    assert.equal(objects.lists, listsBefore + 1, 'storage answered');
    assert.ok(errors.some((m) => m.includes('list failed')));
    controlled.failLists = false;
    // The reflector lists again after its backoff; each cached() call waits up to the timeout for it.
    const back = withDeadline(
      (async () => {
        for (;;) {
          const object = await cacher.cached('/registry/pods/ns/a');
          if (object !== undefined) return object;
        }
      })(),
      5000,
      'the cache to list',
    );
    assert.equal((await back).metadata.name, 'a');
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

describe('watch cache: objects created through it', () => {
  const shared = { unchangedAfterWrite: true };

  it('holds the very object a create that leaves it unchanged wrote, with its resourceVersion, instead of decoding it again', async () => {
    const { cacher } = setup();
    await cacher.list('/registry/pods/');
    const created = await cacher.create('/registry/pods/ns/a', pod('a', { app: 'x' }), shared);
    await cacher.list('/registry/pods/'); // consistent: the cache has applied the create
    const cached = await cacher.cached('/registry/pods/ns/a');
    assert.equal(cached, created);
    assert.equal(cached?.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(cacher.recentWriteCount, 0);
    cacher.stop();
  });

  it('decodes what other creates wrote: a create that does not promise to leave its object unchanged', async () => {
    const { cacher } = setup();
    await cacher.list('/registry/pods/');
    const created = await cacher.create('/registry/pods/ns/a', pod('a'));
    await cacher.list('/registry/pods/');
    const cached = await cacher.cached('/registry/pods/ns/a');
    assert.notEqual(cached, created);
    assert.deepEqual(cached, created);
    assert.equal(cacher.recentWriteCount, 0);
    cacher.stop();
  });

  it('shares nothing before the cache has started, nor for an object carrying resourceVersion or selfLink', async () => {
    const { cacher } = setup();
    await cacher.create('/registry/pods/ns/a', pod('a'), shared);
    assert.equal(cacher.recentWriteCount, 0, 'not started: nothing remembered');
    await cacher.list('/registry/pods/');
    const withRv = { ...pod('b'), metadata: { name: 'b', namespace: 'ns', resourceVersion: '1' } };
    const created = await cacher.create('/registry/pods/ns/b', withRv, shared);
    await cacher.list('/registry/pods/');
    const cached = await cacher.cached('/registry/pods/ns/b');
    assert.notEqual(cached, created);
    assert.deepEqual(Object.keys(cached!.metadata), ['name', 'namespace', 'resourceVersion']);
    cacher.stop();
  });

  it('forgets a create that failed: the cache keeps the object that exists', async () => {
    const { cacher } = setup();
    await cacher.list('/registry/pods/');
    const first = await cacher.create('/registry/pods/ns/a', pod('a', { v: '1' }), shared);
    await cacher.list('/registry/pods/');
    await assert.rejects(cacher.create('/registry/pods/ns/a', pod('a', { v: '2' }), shared), (e: unknown) => isStorageError(e, 'KeyExists'));
    assert.equal(cacher.recentWriteCount, 0);
    await cacher.list('/registry/pods/');
    assert.equal(await cacher.cached('/registry/pods/ns/a'), first);
    assert.deepEqual((await cacher.cached('/registry/pods/ns/a'))?.metadata.labels, { v: '1' });
    cacher.stop();
  });

  it('sees later changes of a shared object: an update is decoded from storage', async () => {
    const { cacher } = setup();
    await cacher.list('/registry/pods/');
    const created = await cacher.create('/registry/pods/ns/a', pod('a', { v: '1' }), shared);
    await cacher.guaranteedUpdate('/registry/pods/ns/a', (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { v: '2' } } }));
    await cacher.list('/registry/pods/');
    const cached = await cacher.cached('/registry/pods/ns/a');
    assert.notEqual(cached, created);
    assert.deepEqual(cached?.metadata.labels, { v: '2' });
    assert.deepEqual(created.metadata.labels, { v: '1' }, 'the shared object itself never changes');
    cacher.stop();
  });
});
