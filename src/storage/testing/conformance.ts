/**
 * The storage conformance suite: every rule of the Storage interface, written
 * once and run against each backend (sqlite, etcd, memory), so that the API
 * server can rely on the interface and never on a backend.
 *
 * @example
 *   runStorageConformance('sqlite', async () => openSqliteStorage({ path }));
 *
 * Each test takes a fresh store from `makeStore`, works under a key prefix of its
 * own, never assumes that revisions start at any particular number, and closes
 * the store at the end.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { isStorageError, type StorageErrorCode } from '../errors.js';
import {
  eventRevision,
  MAX_VALUE_BYTES,
  type KeyValue,
  type Storage,
  type StorageEvent,
  type StorageWatch,
} from '../interface.js';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const dec = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

/** Reject with a message naming what was awaited if `promise` does not settle in time. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Read exactly `count` events from a watch (or fail at the deadline). */
export async function takeEvents(watch: StorageWatch, count: number, ms = 10_000): Promise<StorageEvent[]> {
  const events: StorageEvent[] = [];
  if (count === 0) return events;
  const iterator = watch[Symbol.asyncIterator]();
  const read = async (): Promise<StorageEvent[]> => {
    while (events.length < count) {
      const next = await iterator.next();
      if (next.done === true) throw new Error(`watch ended after ${events.length} of ${count} events`);
      if (next.value.type !== 'PROGRESS') events.push(next.value);
    }
    return events;
  };
  return withDeadline(read(), ms, `${count} watch events (got ${events.length})`);
}

/** Read a watch up to its next progress notification: the events before it and its revision. */
export async function takeUntilProgress(watch: StorageWatch, ms = 10_000): Promise<{ events: StorageEvent[]; revision: number }> {
  const events: StorageEvent[] = [];
  const iterator = watch[Symbol.asyncIterator]();
  const read = async (): Promise<{ events: StorageEvent[]; revision: number }> => {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) throw new Error(`watch ended after ${events.length} events, before a progress notification`);
      if (next.value.type === 'PROGRESS') return { events, revision: next.value.revision };
      events.push(next.value);
    }
  };
  return withDeadline(read(), ms, `a progress notification (after ${events.length} events)`);
}

async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<unknown> {
  try {
    await promise;
  } catch (e: unknown) {
    assert.ok(isStorageError(e, code), `expected StorageError ${code}, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

function summary(e: StorageEvent): string {
  return e.type === 'PUT'
    ? `PUT ${e.kv.key}=${dec(e.kv.value)}@${e.kv.modRevision}${e.prevKv ? ` prev=${dec(e.prevKv.value)}` : ''}`
    : `DELETE ${e.key}@${e.revision} prev=${dec(e.prevKv.value)}`;
}

export function runStorageConformance(name: string, makeStore: () => Promise<Storage>): void {
  /** Run `body` with a fresh store and a unique key prefix; always close the store. */
  const withStore = async (body: (store: Storage, prefix: string) => Promise<void>): Promise<void> => {
    const store = await makeStore();
    const prefix = `/conformance-${randomBytes(4).toString('hex')}/`;
    try {
      await body(store, prefix);
    } finally {
      await store.close();
    }
  };

  describe(`storage conformance: ${name}`, () => {
    it('get of a missing key is undefined', () =>
      withStore(async (s, p) => {
        assert.equal(await s.get(`${p}missing`), undefined);
      }));

    it('create stores the value at a new revision and get reads it back', () =>
      withStore(async (s, p) => {
        const before = await s.currentRevision();
        const kv = await s.create(`${p}a`, enc('one'));
        assert.equal(kv.key, `${p}a`);
        assert.equal(dec(kv.value), 'one');
        assert.ok(kv.modRevision > before, 'revision increases');
        assert.equal(kv.createRevision, kv.modRevision);
        assert.equal(await s.currentRevision(), kv.modRevision);
        const got = await s.get(`${p}a`);
        assert.ok(got);
        assert.equal(dec(got.value), 'one');
        assert.equal(got.modRevision, kv.modRevision);
        assert.equal(got.createRevision, kv.createRevision);
      }));

    it('empty values are stored', () =>
      withStore(async (s, p) => {
        await s.create(`${p}empty`, new Uint8Array());
        const got = await s.get(`${p}empty`);
        assert.ok(got);
        assert.equal(got.value.length, 0);
      }));

    it('create of an existing key fails with KeyExists and changes nothing', () =>
      withStore(async (s, p) => {
        const kv = await s.create(`${p}a`, enc('one'));
        await expectStorageError(s.create(`${p}a`, enc('two')), 'KeyExists');
        const got = await s.get(`${p}a`);
        assert.equal(dec(got!.value), 'one');
        assert.equal(got!.modRevision, kv.modRevision);
        assert.equal(await s.currentRevision(), kv.modRevision);
      }));

    it('update with the current revision replaces the value and keeps createRevision', () =>
      withStore(async (s, p) => {
        const created = await s.create(`${p}a`, enc('one'));
        const updated = await s.update(`${p}a`, enc('two'), created.modRevision);
        assert.ok(updated.modRevision > created.modRevision);
        assert.equal(updated.createRevision, created.createRevision);
        assert.equal(dec(updated.value), 'two');
        const got = await s.get(`${p}a`);
        assert.equal(dec(got!.value), 'two');
        assert.equal(got!.modRevision, updated.modRevision);
      }));

    it('update with a stale revision fails with Conflict, carries the current value and changes nothing', () =>
      withStore(async (s, p) => {
        const created = await s.create(`${p}a`, enc('one'));
        const updated = await s.update(`${p}a`, enc('two'), created.modRevision);
        const e = await expectStorageError(s.update(`${p}a`, enc('three'), created.modRevision), 'Conflict');
        assert.ok(isStorageError(e));
        assert.equal(dec(e.current!.value), 'two');
        assert.equal(e.current!.modRevision, updated.modRevision);
        assert.equal(dec((await s.get(`${p}a`))!.value), 'two');
        assert.equal(await s.currentRevision(), updated.modRevision);
      }));

    it('update of a missing key fails with KeyNotFound', () =>
      withStore(async (s, p) => {
        const before = await s.currentRevision();
        await expectStorageError(s.update(`${p}missing`, enc('x'), 1), 'KeyNotFound');
        assert.equal(await s.get(`${p}missing`), undefined);
        assert.equal(await s.currentRevision(), before);
      }));

    it('delete returns the deleted value and the revision of the deletion', () =>
      withStore(async (s, p) => {
        const kv = await s.create(`${p}a`, enc('one'));
        const result = await s.delete(`${p}a`);
        assert.equal(dec(result.prevKv.value), 'one');
        assert.equal(result.prevKv.modRevision, kv.modRevision);
        assert.ok(result.revision > kv.modRevision);
        assert.equal(await s.currentRevision(), result.revision);
        assert.equal(await s.get(`${p}a`), undefined);
      }));

    it('delete of a missing key fails with KeyNotFound', () =>
      withStore(async (s, p) => {
        await expectStorageError(s.delete(`${p}missing`), 'KeyNotFound');
        await expectStorageError(s.delete(`${p}missing`, 5), 'KeyNotFound');
      }));

    it('delete with a stale revision fails with Conflict and keeps the key; with the current one it deletes', () =>
      withStore(async (s, p) => {
        const created = await s.create(`${p}a`, enc('one'));
        const updated = await s.update(`${p}a`, enc('two'), created.modRevision);
        const e = await expectStorageError(s.delete(`${p}a`, created.modRevision), 'Conflict');
        assert.ok(isStorageError(e));
        assert.equal(e.current!.modRevision, updated.modRevision);
        assert.equal(dec((await s.get(`${p}a`))!.value), 'two');
        const result = await s.delete(`${p}a`, updated.modRevision);
        assert.equal(dec(result.prevKv.value), 'two');
        assert.equal(await s.get(`${p}a`), undefined);
      }));

    it('a key created again after deletion has a new createRevision', () =>
      withStore(async (s, p) => {
        const first = await s.create(`${p}a`, enc('one'));
        await s.delete(`${p}a`);
        const second = await s.create(`${p}a`, enc('again'));
        assert.ok(second.createRevision > first.createRevision);
        assert.equal(second.createRevision, second.modRevision);
      }));

    it('values over 1.5 MiB are refused with TooLarge and nothing is written', () =>
      withStore(async (s, p) => {
        const before = await s.currentRevision();
        await expectStorageError(s.create(`${p}big`, new Uint8Array(MAX_VALUE_BYTES + 1)), 'TooLarge');
        assert.equal(await s.get(`${p}big`), undefined);
        assert.equal(await s.currentRevision(), before);
        const small = await s.create(`${p}small`, enc('x'));
        await expectStorageError(s.update(`${p}small`, new Uint8Array(MAX_VALUE_BYTES + 1), small.modRevision), 'TooLarge');
        assert.equal(dec((await s.get(`${p}small`))!.value), 'x');
        const mib = await s.create(`${p}one-mib`, new Uint8Array(1024 * 1024).fill(7));
        assert.equal((await s.get(`${p}one-mib`))!.value.length, 1024 * 1024);
        assert.ok(mib.modRevision > small.modRevision);
      }));

    it('list returns only the keys under the prefix, in byte order, with the read revision', () =>
      withStore(async (s, p) => {
        for (const k of ['b', 'a/x', 'c', 'a', 'B', 'a0']) await s.create(`${p}${k}`, enc(k));
        await s.create(`${p.slice(0, -1)}x`, enc('sibling, not under the prefix'));
        const result = await s.list(p);
        assert.deepEqual(
          result.items.map((kv) => kv.key.slice(p.length)),
          ['B', 'a', 'a/x', 'a0', 'b', 'c'],
        );
        assert.equal(result.more, false);
        assert.equal(result.revision, await s.currentRevision());
        const sub = await s.list(`${p}a/`);
        assert.deepEqual(sub.items.map((kv) => dec(kv.value)), ['a/x']);
        const none = await s.list(`${p}nothing/`);
        assert.deepEqual(none.items, []);
      }));

    it('list at an older revision shows the values of that revision', () =>
      withStore(async (s, p) => {
        const a = await s.create(`${p}a`, enc('a1'));
        const b = await s.create(`${p}b`, enc('b1'));
        const snapshot = b.modRevision;
        await s.update(`${p}a`, enc('a2'), a.modRevision);
        await s.delete(`${p}b`);
        await s.create(`${p}c`, enc('c1'));
        const old = await s.list(p, { revision: snapshot });
        assert.equal(old.revision, snapshot);
        assert.deepEqual(old.items.map((kv) => `${kv.key.slice(p.length)}=${dec(kv.value)}`), ['a=a1', 'b=b1']);
        assert.equal(old.items[0]!.modRevision, a.modRevision);
        const now = await s.list(p);
        assert.deepEqual(now.items.map((kv) => `${kv.key.slice(p.length)}=${dec(kv.value)}`), ['a=a2', 'c=c1']);
      }));

    it('list at a future revision fails with FutureRevision', () =>
      withStore(async (s, p) => {
        await s.create(`${p}a`, enc('a'));
        const current = await s.currentRevision();
        await expectStorageError(s.list(p, { revision: current + 1000 }), 'FutureRevision');
      }));

    it('a list paged with limit/continueFrom while writes go on returns one consistent snapshot', () =>
      withStore(async (s, p) => {
        const expected: string[] = [];
        for (let i = 0; i < 25; i++) {
          const key = `${p}item-${String(i).padStart(2, '0')}`;
          await s.create(key, enc(`v${i}`));
          expected.push(`${key}=v${i}`);
        }
        const seen: string[] = [];
        let page = await s.list(p, { limit: 4 });
        const revision = page.revision;
        let writes = 0;
        for (;;) {
          assert.equal(page.revision, revision, 'every page is read at the first page\'s revision');
          assert.ok(page.items.length <= 4);
          for (const kv of page.items) seen.push(`${kv.key}=${dec(kv.value)}`);
          // Writes between pages: change keys already listed and keys not yet listed.
          const w = writes++;
          const target = `${p}item-${String((w * 7) % 25).padStart(2, '0')}`;
          const current = await s.get(target);
          if (current) {
            if (w % 3 === 0) await s.delete(target);
            else await s.update(target, enc(`changed-${w}`), current.modRevision);
          }
          await s.create(`${p}item-${String(w).padStart(2, '0')}-new`, enc('new'));
          if (!page.more) break;
          const last = page.items[page.items.length - 1]!.key;
          page = await s.list(p, { limit: 4, revision, continueFrom: last });
        }
        assert.deepEqual(seen, expected);
      }));

    it('limit with more=false on the last page, and continueFrom past the end', () =>
      withStore(async (s, p) => {
        for (const k of ['a', 'b', 'c', 'd']) await s.create(`${p}${k}`, enc(k));
        const first = await s.list(p, { limit: 2 });
        assert.deepEqual(first.items.map((kv) => dec(kv.value)), ['a', 'b']);
        assert.equal(first.more, true);
        const second = await s.list(p, { limit: 2, revision: first.revision, continueFrom: `${p}b` });
        assert.deepEqual(second.items.map((kv) => dec(kv.value)), ['c', 'd']);
        assert.equal(second.more, false);
        const past = await s.list(p, { revision: first.revision, continueFrom: `${p}d` });
        assert.deepEqual(past.items, []);
        assert.equal(past.more, false);
      }));

    it('counts the keys of a range that has more, from continueFrom on, now and at an older revision', () =>
      withStore(async (s, p) => {
        for (const k of ['a', 'b', 'c', 'd', 'e']) await s.create(`${p}${k}`, enc(k));
        const first = await s.list(p, { limit: 2 });
        assert.equal(first.count, 5);
        assert.equal((await s.list(p, { limit: 2, revision: first.revision, continueFrom: `${p}a` })).count, 4);
        await s.create(`${p}f`, enc('f'));
        await s.delete(`${p}b`);
        assert.equal((await s.list(p, { limit: 1, revision: first.revision })).count, 5);
        assert.equal((await s.list(p, { limit: 1 })).count, 5);
        assert.equal((await s.list(p, { limit: 5 })).more, false);
      }));

    it('16 concurrent writers doing compare-and-swap increments on one key lose no increment', () =>
      withStore(async (s, p) => {
        const key = `${p}counter`;
        await s.create(key, enc('0'));
        const writers = 16;
        const perWriter = 20;
        let conflicts = 0;
        const increment = async (): Promise<void> => {
          let current = (await s.get(key))!;
          for (;;) {
            try {
              await s.update(key, enc(String(Number(dec(current.value)) + 1)), current.modRevision);
              return;
            } catch (e: unknown) {
              if (!isStorageError(e, 'Conflict')) throw e;
              conflicts++;
              current = e.current!;
            }
          }
        };
        await Promise.all(
          Array.from({ length: writers }, async () => {
            for (let i = 0; i < perWriter; i++) await increment();
          }),
        );
        assert.equal(dec((await s.get(key))!.value), String(writers * perWriter));
        assert.ok(conflicts > 0, 'the writers really did race');
      }));

    it('a watch opened at revision R sees exactly the events after R, in order, history then live', () =>
      withStore(async (s, p) => {
        const a = await s.create(`${p}a`, enc('a1'));
        const from = a.modRevision;
        const a2 = await s.update(`${p}a`, enc('a2'), a.modRevision);
        await s.create(`${p}b`, enc('b1'));
        await s.create(`${p.slice(0, -1)}-other/x`, enc('not watched'));
        const watch = s.watch(p, from);
        try {
          // Live writes after the watch was opened.
          const d = await s.delete(`${p}a`);
          const c = await s.create(`${p}c`, enc('c1'));
          const events = await takeEvents(watch, 4);
          assert.deepEqual(events.map(summary), [
            `PUT ${p}a=a2@${a2.modRevision} prev=a1`,
            `PUT ${p}b=b1@${a2.modRevision + 1}`,
            `DELETE ${p}a@${d.revision} prev=a2`,
            `PUT ${p}c=c1@${c.modRevision}`,
          ]);
          const revisions = events.map(eventRevision);
          assert.deepEqual([...revisions].sort((x, y) => x - y), revisions, 'in revision order');
          const first = events[0]!;
          assert.ok(first.type === 'PUT');
          assert.equal(first.kv.createRevision, a.createRevision);
          assert.equal(first.prevKv?.modRevision, a.modRevision);
        } finally {
          watch.cancel();
        }
      }));

    it('a watch from the current revision sees only later changes, and no other prefix', () =>
      withStore(async (s, p) => {
        await s.create(`${p}old`, enc('old'));
        const watch = s.watch(`${p}in/`, await s.currentRevision());
        try {
          await s.create(`${p}out`, enc('out'));
          await s.create(`${p}in/one`, enc('1'));
          await s.create(`${p}in-not/one`, enc('sibling'));
          await s.create(`${p}in/two`, enc('2'));
          const events = await takeEvents(watch, 2);
          assert.deepEqual(
            events.map((e) => (e.type === 'PUT' ? dec(e.kv.value) : e.type)),
            ['1', '2'],
          );
        } finally {
          watch.cancel();
        }
      }));

    it('many concurrent writes reach a watcher in order with no gap and no duplicate', () =>
      withStore(async (s, p) => {
        const watch = s.watch(p, await s.currentRevision());
        try {
          const kvs = await Promise.all(
            Array.from({ length: 200 }, (_, i) => s.create(`${p}k${i}`, enc(String(i)))),
          );
          const events = await takeEvents(watch, 200);
          const revisions = events.map(eventRevision);
          assert.deepEqual(revisions, kvs.map((kv) => kv.modRevision).sort((x, y) => x - y));
          assert.equal(new Set(revisions).size, 200);
        } finally {
          watch.cancel();
        }
      }));

    it('requestProgress on a quiet prefix yields a progress notification at or above the current revision', () =>
      withStore(async (store, prefix) => {
        await store.create(`${prefix}watched/a`, enc('1'));
        const watch = store.watch(`${prefix}watched/`, await store.currentRevision());
        try {
          // Writes elsewhere move the store on; this watch hears nothing of them but progress.
          for (let i = 0; i < 3; i++) await store.create(`${prefix}other/${i}`, enc('x'));
          const current = await store.currentRevision();
          watch.requestProgress();
          watch.requestProgress(); // coalesced with the first
          const { events, revision } = await takeUntilProgress(watch);
          assert.deepEqual(events.map(summary), []);
          assert.ok(revision >= current, `progress ${revision} is below the current revision ${current}`);
        } finally {
          watch.cancel();
        }
      }));

    it('a progress notification comes after every event up to its revision, also with writes in flight', () =>
      withStore(async (store, prefix) => {
        const start = await store.currentRevision();
        const watch = store.watch(prefix, start);
        try {
          const settled = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create(`${prefix}k${i}`, enc(String(i)))));
          const current = await store.currentRevision();
          // More writes race with the request: whatever the answer, nothing at or below it may follow it.
          const racing = Array.from({ length: 20 }, (_, i) => store.create(`${prefix}r${i}`, enc(String(i))));
          watch.requestProgress();
          const { events, revision } = await takeUntilProgress(watch);
          await Promise.all(racing);
          assert.ok(revision >= current, `progress ${revision} is below the revision ${current} read before the request`);
          const before = events.map(eventRevision);
          for (const kv of settled) assert.ok(before.includes(kv.modRevision), `event at ${kv.modRevision} came after the progress at ${revision}`);
          assert.ok(before.every((r) => r <= revision), 'an event above the progress revision came before it');
          const after = await takeEvents(watch, 40 - events.length);
          for (const e of after) assert.ok(eventRevision(e) > revision, `event ${summary(e)} follows a progress at ${revision}`);
        } finally {
          watch.cancel();
        }
      }));

    it('requestProgress on a cancelled watch is ignored', () =>
      withStore(async (store, prefix) => {
        const watch = store.watch(prefix, await store.currentRevision());
        watch.cancel();
        watch.requestProgress();
        const items: unknown[] = [];
        for await (const item of watch) items.push(item);
        assert.deepEqual(items, []);
      }));

    it('cancel ends the iteration of a watch', () =>
      withStore(async (s, p) => {
        const watch = s.watch(p, await s.currentRevision());
        const iterator = watch[Symbol.asyncIterator]();
        const pending = iterator.next();
        watch.cancel();
        const result = await withDeadline(pending, 5000, 'the cancelled watch to end');
        assert.equal(result.done, true);
        watch.cancel(); // idempotent
      }));

    it('after compaction, a watch or a list at an older revision fails with Compacted; current reads still work', () =>
      withStore(async (s, p) => {
        const kvs: KeyValue[] = [];
        let last = await s.create(`${p}a`, enc('0'));
        kvs.push(last);
        for (let i = 1; i <= 6; i++) {
          last = await s.update(`${p}a`, enc(String(i)), last.modRevision);
          kvs.push(last);
        }
        await s.create(`${p}b`, enc('b'));
        const compactAt = kvs[5]!.modRevision;
        await s.compact(compactAt);
        const watch = s.watch(p, kvs[1]!.modRevision);
        const e = await expectStorageError(takeEvents(watch, 1), 'Compacted');
        assert.ok(isStorageError(e));
        assert.equal(e.compactRevision, compactAt);
        watch.cancel();
        const listError = await expectStorageError(s.list(p, { revision: kvs[1]!.modRevision }), 'Compacted');
        assert.ok(isStorageError(listError));
        assert.equal(listError.compactRevision, compactAt);
        // Current state survives compaction.
        assert.equal(dec((await s.get(`${p}a`))!.value), '6');
        assert.deepEqual((await s.list(p)).items.map((kv) => dec(kv.value)), ['6', 'b']);
        // The compacted revision itself is still readable.
        const atCompact = await s.list(p, { revision: compactAt });
        assert.deepEqual(atCompact.items.map((kv) => dec(kv.value)), ['5']);
        // A watch from the compact revision still works and sees what followed.
        const ok = s.watch(p, compactAt);
        try {
          const events = await takeEvents(ok, 2);
          assert.deepEqual(events.map((ev) => (ev.type === 'PUT' ? dec(ev.kv.value) : ev.type)), ['6', 'b']);
        } finally {
          ok.cancel();
        }
        // Compacting again to the same or an older revision is harmless.
        await s.compact(compactAt);
      }));

    it('a closed store refuses calls with Closed and ends its watches', async () => {
      const s = await makeStore();
      const p = `/conformance-${randomBytes(4).toString('hex')}/`;
      const kv = await s.create(`${p}a`, enc('a'));
      const watch = s.watch(p, kv.modRevision);
      const iterator = watch[Symbol.asyncIterator]();
      const pending = iterator.next();
      await s.close();
      const ended = await withDeadline(
        pending.then(
          (r) => r.done,
          (e: unknown) => isStorageError(e, 'Closed') || isStorageError(e, 'Unavailable'),
        ),
        5000,
        'the watch to end on close',
      );
      assert.equal(ended, true);
      await expectStorageError(s.get(`${p}a`), 'Closed');
      await expectStorageError(s.list(p), 'Closed');
      await expectStorageError(s.create(`${p}b`, enc('b')), 'Closed');
      await expectStorageError(s.update(`${p}a`, enc('x'), kv.modRevision), 'Closed');
      await expectStorageError(s.delete(`${p}a`), 'Closed');
      await expectStorageError(s.currentRevision(), 'Closed');
      await expectStorageError(s.compact(kv.modRevision), 'Closed');
      await expectStorageError(takeEvents(s.watch(p, kv.modRevision), 1), 'Closed');
      await s.close(); // idempotent
    });
  });
}
