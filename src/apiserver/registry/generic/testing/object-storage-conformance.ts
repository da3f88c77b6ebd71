/**
 * The object-storage conformance suite: every rule of the ObjectStore
 * interface, written once and run against the uncached ObjectStorage and the
 * watch cache (Cacher), so that the generic store can rely on the interface and
 * never on which of them serves it.
 *
 * @example
 *   runObjectStorageConformance('cacher over sqlite', async (prefix) => { … return { store, storage, close }; });
 *
 * Each test gets a fresh store for a key prefix of its own (`make(prefix)`),
 * never assumes that revisions start at any particular number, and closes it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isStorageError, type StorageErrorCode } from '../../../../storage/errors.js';
import type { Storage } from '../../../../storage/interface.js';
import { withDeadline } from '../../../../storage/testing/conformance.js';
import type { ObjectEvent, ObjectWatch } from '../object-storage.js';
import type { ObjectStore } from '../object-store.js';

/** A cache under test keeps at most this many changes (its maxEvents), so that the suite can outrun its history. */
export const HISTORY_LIMIT = 8;

export interface ObjectStorageUnderTest {
  readonly store: ObjectStore;
  /** The storage underneath (to compact it, and to write behind the store's back). */
  readonly storage: Storage;
  close(): Promise<void>;
}

const pod = (name: string, labels: Record<string, string> = {}, namespace = 'ns'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { n: 0 },
});

const names = (items: readonly KubeObject[]): (string | undefined)[] => items.map((o) => o.metadata.name);
const rv = (o: KubeObject): number => Number(o.metadata.resourceVersion);
const counter = (o: KubeObject | undefined): number => (o?.spec as { n: number } | undefined)?.n ?? -1;

/** Read exactly `count` events from a watch (or fail at the deadline). */
export async function takeObjectEvents(watch: ObjectWatch, count: number, ms = 10_000): Promise<ObjectEvent[]> {
  const out: ObjectEvent[] = [];
  const it = watch[Symbol.asyncIterator]();
  return withDeadline(
    (async () => {
      while (out.length < count) {
        const next = await it.next();
        if (next.done === true) throw new Error(`watch ended after ${out.length} of ${count} events`);
        if (next.value.type !== 'BOOKMARK') out.push(next.value);
      }
      return out;
    })(),
    ms,
    `${count} watch events (got ${out.length})`,
  );
}

async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  try {
    await promise;
  } catch (e: unknown) {
    assert.ok(isStorageError(e, code), `expected StorageError ${code}, got ${String(e)}`);
    return;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

export function runObjectStorageConformance(name: string, make: (prefix: string) => Promise<ObjectStorageUnderTest>): void {
  const withStore = async (body: (t: ObjectStorageUnderTest, prefix: string) => Promise<void>): Promise<void> => {
    const prefix = `/registry/conformance-${randomBytes(4).toString('hex')}/`;
    const t = await make(prefix);
    try {
      await body(t, prefix);
    } finally {
      await t.close();
    }
  };

  describe(`object storage conformance: ${name}`, () => {
    it('create returns the object at its new resourceVersion; get reads it back; a second create fails with KeyExists', () =>
      withStore(async ({ store }, p) => {
        assert.equal(await store.get(`${p}ns/a`), undefined);
        const created = await store.create(`${p}ns/a`, pod('a'));
        assert.ok(rv(created) > 0);
        const got = await store.get(`${p}ns/a`);
        assert.equal(got?.metadata.name, 'a');
        assert.equal(got?.metadata.resourceVersion, created.metadata.resourceVersion);
        await expectStorageError(store.create(`${p}ns/a`, pod('a')), 'KeyExists');
      }));

    it('a consistent list holds every write acknowledged before it, in key order, under the prefix only', () =>
      withStore(async ({ store }, p) => {
        await store.create(`${p}ns/b`, pod('b'));
        await store.create(`${p}ns/a`, pod('a'));
        await store.create(`${p}other/c`, pod('c', {}, 'other'));
        assert.deepEqual(names((await store.list(p)).items), ['a', 'b', 'c']);
        const last = await store.create(`${p}ns/d`, pod('d'));
        const list = await store.list(`${p}ns/`);
        assert.deepEqual(names(list.items), ['a', 'b', 'd']);
        assert.ok(list.revision >= rv(last));
        assert.equal(list.continueKey, undefined);
      }));

    it('a list filters with the predicate', () =>
      withStore(async ({ store }, p) => {
        await store.create(`${p}ns/a`, pod('a', { app: 'web' }));
        await store.create(`${p}ns/b`, pod('b', { app: 'db' }));
        await store.create(`${p}ns/c`, pod('c', { app: 'web' }));
        const list = await store.list(p, { predicate: (o) => o.metadata.labels?.app === 'web' });
        assert.deepEqual(names(list.items), ['a', 'c']);
      }));

    it('a paged list returns each object once from one snapshot, whatever is written between pages', () =>
      withStore(async ({ store }, p) => {
        for (const n of ['a', 'b', 'c', 'd', 'e']) await store.create(`${p}ns/${n}`, pod(n));
        const first = await store.list(p, { limit: 2 });
        assert.deepEqual(names(first.items), ['a', 'b']);
        assert.ok(first.continueKey !== undefined);
        await store.delete(`${p}ns/c`);
        await store.create(`${p}ns/f`, pod('f'));
        const seen = [...names(first.items)];
        let continueKey: string | undefined = first.continueKey;
        while (continueKey !== undefined) {
          const page = await store.list(p, { limit: 2, revision: first.revision, continueKey });
          assert.equal(page.revision, first.revision);
          seen.push(...names(page.items));
          continueKey = page.continueKey;
        }
        assert.deepEqual(seen, ['a', 'b', 'c', 'd', 'e']);
      }));

    it('a paged list with a predicate fills its pages with matching objects only', () =>
      withStore(async ({ store }, p) => {
        for (let i = 0; i < 6; i++) await store.create(`${p}ns/p${i}`, pod(`p${i}`, { even: String(i % 2 === 0) }));
        const predicate = (o: KubeObject): boolean => o.metadata.labels?.even === 'true';
        const first = await store.list(p, { limit: 2, predicate });
        assert.deepEqual(names(first.items), ['p0', 'p2']);
        const rest = await store.list(p, { limit: 2, predicate, revision: first.revision, continueKey: first.continueKey! });
        assert.deepEqual(names(rest.items), ['p4']);
      }));

    it('resourceVersion semantics: an exact revision shows that state; notOlderThan gives a state at least that recent', () =>
      withStore(async ({ store }, p) => {
        const a = await store.create(`${p}ns/a`, pod('a'));
        await store.create(`${p}ns/b`, pod('b'));
        const exact = await store.list(p, { revision: rv(a) });
        assert.deepEqual(names(exact.items), ['a']);
        assert.equal(exact.revision, rv(a));
        const c = await store.create(`${p}ns/c`, pod('c'));
        const recent = await store.list(p, { notOlderThan: rv(c) });
        assert.deepEqual(names(recent.items), ['a', 'b', 'c']);
        assert.ok(recent.revision >= rv(c));
        const any = await store.list(p, { notOlderThan: 0 });
        assert.ok(any.revision >= rv(a));
      }));

    it('a list at a compacted revision fails with Compacted', () =>
      withStore(async ({ store, storage }, p) => {
        const a = await store.create(`${p}ns/a`, pod('a'));
        await store.create(`${p}ns/b`, pod('b'));
        await storage.compact(await storage.currentRevision());
        await expectStorageError(store.list(p, { revision: rv(a) }), 'Compacted');
      }));

    it('guaranteedUpdate retries on conflict: concurrent increments all land', () =>
      withStore(async ({ store, storage }, p) => {
        const key = `${p}ns/counter`;
        await store.create(key, pod('counter'));
        const bump = (o: KubeObject | undefined): KubeObject => ({ ...o!, spec: { n: counter(o) + 1 } });
        // One writer behind the store's back, so that the first compare-and-swap of some of them fails.
        const behind = (async () => {
          for (;;) {
            const kv = (await storage.get(key))!;
            const object = JSON.parse(Buffer.from(kv.value).toString('utf8')) as KubeObject;
            try {
              await storage.update(key, Buffer.from(JSON.stringify({ ...object, spec: { n: counter(object) + 1 } })), kv.modRevision);
              return;
            } catch (e: unknown) {
              if (!isStorageError(e, 'Conflict')) throw e;
            }
          }
        })();
        await Promise.all([behind, ...Array.from({ length: 10 }, () => store.guaranteedUpdate(key, bump))]);
        assert.equal(counter(await store.get(key)), 11);
      }));

    it('guaranteedUpdate: a missing key fails with KeyNotFound unless allowCreate; a throwing tryUpdate aborts; an unchanged object is not written', () =>
      withStore(async ({ store }, p) => {
        await expectStorageError(store.guaranteedUpdate(`${p}ns/x`, (o) => o!), 'KeyNotFound');
        const made = await store.guaranteedUpdate(`${p}ns/x`, (o) => o ?? pod('x'), { allowCreate: true });
        assert.equal(made.created, true);
        await assert.rejects(
          store.guaranteedUpdate(`${p}ns/x`, () => {
            throw new Error('refused by tryUpdate');
          }),
          /refused by tryUpdate/,
        );
        const same = await store.guaranteedUpdate(`${p}ns/x`, (o) => o!);
        assert.equal(same.created, false);
        assert.equal(same.object.metadata.resourceVersion, made.object.metadata.resourceVersion);
        const changed = await store.guaranteedUpdate(`${p}ns/x`, (o) => ({ ...o!, spec: { n: 5 } }));
        assert.ok(rv(changed.object) > rv(made.object));
        assert.equal(counter(await store.get(`${p}ns/x`)), 5);
      }));

    it('delete checks its precondition against the current object; a refusal keeps it; a missing key fails with KeyNotFound', () =>
      withStore(async ({ store }, p) => {
        const a = await store.create(`${p}ns/a`, pod('a'));
        await assert.rejects(
          store.delete(`${p}ns/a`, (current) => {
            if (current.metadata.uid !== 'expected-uid') throw new Error('precondition failed');
          }),
          /precondition failed/,
        );
        assert.ok((await store.get(`${p}ns/a`)) !== undefined);
        let checked: string | undefined;
        const deleted = await store.delete(`${p}ns/a`, (current) => (checked = current.metadata.resourceVersion));
        assert.equal(checked, a.metadata.resourceVersion);
        assert.equal(deleted.metadata.name, 'a');
        assert.equal(await store.get(`${p}ns/a`), undefined);
        await expectStorageError(store.delete(`${p}ns/a`), 'KeyNotFound');
      }));

    it('a watch from a revision sees every change after it, in order: ADDED, MODIFIED, DELETED', () =>
      withStore(async ({ store }, p) => {
        const a = await store.create(`${p}ns/a`, pod('a'));
        await store.create(`${p}ns/b`, pod('b'));
        await store.guaranteedUpdate(`${p}ns/a`, (o) => ({ ...o!, spec: { n: 1 } }));
        const watch = store.watch(p, rv(a));
        try {
          const pending = takeObjectEvents(watch, 4);
          const deleted = await store.delete(`${p}ns/b`);
          await store.create(`${p}other/c`, pod('c', {}, 'other'));
          const events = await pending;
          assert.deepEqual(
            events.map((e) => `${e.type} ${e.object.metadata.name}`),
            ['ADDED b', 'MODIFIED a', 'DELETED b', 'ADDED c'],
          );
          const revisions = events.map((e) => e.revision);
          assert.deepEqual([...revisions].sort((x, y) => x - y), revisions);
          for (const e of events) assert.equal(e.object.metadata.resourceVersion, String(e.revision));
          assert.equal(deleted.metadata.name, 'b');
        } finally {
          watch.cancel();
        }
      }));

    it('a watch of a namespace prefix with a predicate: objects entering it are ADDED, leaving it DELETED', () =>
      withStore(async ({ store }, p) => {
        const start = await store.currentRevision();
        const watch = store.watch(`${p}ns/`, start, (o) => o.metadata.labels?.app === 'web');
        try {
          const pending = takeObjectEvents(watch, 3);
          await store.create(`${p}other/x`, pod('x', { app: 'web' }, 'other'));
          await store.create(`${p}ns/a`, pod('a'));
          await store.guaranteedUpdate(`${p}ns/a`, (o) => ({ ...o!, metadata: { ...o!.metadata, labels: { app: 'web' } } }));
          await store.guaranteedUpdate(`${p}ns/a`, (o) => ({ ...o!, spec: { n: 2 } }));
          await store.guaranteedUpdate(`${p}ns/a`, (o) => ({ ...o!, metadata: { ...o!.metadata, labels: {} } }));
          assert.deepEqual((await pending).map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED a', 'MODIFIED a', 'DELETED a']);
        } finally {
          watch.cancel();
        }
      }));

    it('a watch from a compacted revision fails with Compacted (the client gets 410 Expired)', () =>
      withStore(async ({ store, storage }, p) => {
        const a = await store.create(`${p}ns/a`, pod('a'));
        // More changes than a cache under test keeps (see HISTORY_LIMIT): the revision is older than any history.
        for (let i = 0; i < HISTORY_LIMIT + 2; i++) await store.guaranteedUpdate(`${p}ns/a`, (o) => ({ ...o!, spec: { n: i + 1 } }));
        await store.list(p); // a cache has caught up
        await storage.compact(await storage.currentRevision());
        const watch = store.watch(p, rv(a) - 1);
        try {
          await assert.rejects(takeObjectEvents(watch, 1), (e: unknown) => isStorageError(e, 'Compacted'));
        } finally {
          watch.cancel();
        }
      }));

    it('currentRevision is at least the revision of the last acknowledged write', () =>
      withStore(async ({ store }, p) => {
        const a = await store.create(`${p}ns/a`, pod('a'));
        assert.ok((await store.currentRevision()) >= rv(a));
      }));
  });
}
