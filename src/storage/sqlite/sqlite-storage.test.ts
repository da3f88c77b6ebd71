import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { isStorageError, type StorageErrorCode } from '../errors.js';
import { eventRevision, type KeyValue, type StorageEvent } from '../interface.js';
import { runStorageConformance, takeEvents } from '../testing/conformance.js';
import { newRawWriter, initSchema } from './schema.js';
import { openSqliteStorage, type SqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const dec = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A fresh temp directory, removed when the file's tests end. */
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-sqlite-'));
  dirs.push(dir);
  return dir;
}

/** A store in a fresh directory (a nested one, to check it is created). */
async function freshStore(
  options: Partial<SqliteStorageOptions> = {},
): Promise<{ store: SqliteStorage; path: string }> {
  const path = join(await tempDir(), 'db', 'state.db');
  return { store: openSqliteStorage({ ...options, path }), path };
}

/** Run `body` with a store, closing it afterwards. */
async function withStore(
  body: (store: SqliteStorage, path: string) => Promise<void>,
  options: Partial<SqliteStorageOptions> = {},
): Promise<void> {
  const { store, path } = await freshStore(options);
  try {
    await body(store, path);
  } finally {
    await store.close();
  }
}

/** Wait until `condition` holds, checking every few milliseconds, or fail at the deadline. */
async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function expectCode(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  await assert.rejects(promise, (e: unknown) => isStorageError(e, code));
}

/** Sizes of the database file and its WAL. */
async function fileBytes(path: string): Promise<number> {
  let total = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      total += (await stat(f)).size;
    } catch (e: unknown) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  return total;
}

/** Run `fn` on the closed store's file with a raw connection. */
function withRawDb<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

runStorageConformance('sqlite', async () => (await freshStore()).store);

describe('sqlite storage', () => {
  it('group commit puts concurrent writes into far fewer transactions, with contiguous revisions', () =>
    withStore(async (s) => {
      const before = s.stats();
      const kvs = await Promise.all(Array.from({ length: 50 }, (_, i) => s.create(`/g/k${i}`, enc(String(i)))));
      const stats = s.stats();
      assert.equal(stats.writes - before.writes, 50);
      assert.ok(stats.batches - before.batches < 50, `50 concurrent creates took ${stats.batches} batches`);
      assert.ok(stats.meanBatchSize > 1);
      const revisions = kvs.map((kv) => kv.modRevision).sort((a, b) => a - b);
      assert.deepEqual(revisions, Array.from({ length: 50 }, (_, i) => i + 1));
      // Queue order is revision order.
      assert.deepEqual(kvs.map((kv) => kv.modRevision), revisions);
    }));

  it('checks inside a batch see the earlier operations of the same batch', () =>
    withStore(async (s) => {
      const base = await s.currentRevision();
      // All issued in one turn of the event loop: one transaction.
      const created = s.create('/b/a', enc('1'));
      const duplicate = s.create('/b/a', enc('dup'));
      const updated = s.update('/b/a', enc('2'), base + 1);
      const stale = s.update('/b/a', enc('stale'), base + 1);
      const deleted = s.delete('/b/a', base + 2);
      const missing = s.delete('/b/a');
      const recreated = s.create('/b/a', enc('3'));
      assert.equal((await created).modRevision, base + 1);
      await expectCode(duplicate, 'KeyExists');
      assert.equal((await updated).modRevision, base + 2);
      const conflict = await stale.catch((e: unknown) => e);
      assert.ok(isStorageError(conflict, 'Conflict'));
      assert.equal(conflict.current?.modRevision, base + 2);
      assert.equal((await deleted).revision, base + 3);
      await expectCode(missing, 'KeyNotFound');
      const again = await recreated;
      assert.equal(again.modRevision, base + 4, 'failed checks used no revision');
      assert.equal(again.createRevision, base + 4);
      assert.equal(await s.currentRevision(), base + 4);
      assert.equal(s.stats().batches, 1);
    }));

  it('the stored value is a copy taken when the write is called', () =>
    withStore(async (s) => {
      const value = enc('original');
      const pending = s.create('/copy/a', value);
      value.fill(0);
      await pending;
      assert.equal(dec((await s.get('/copy/a'))!.value), 'original');
    }));

  it('reopening keeps data, revision and compact revision', async () => {
    const { store, path } = await freshStore();
    const a = await store.create('/r/a', enc('a1'));
    await store.update('/r/a', enc('a2'), a.modRevision);
    await store.create('/r/b', enc('b'));
    const gone = await store.create('/r/gone', enc('x'));
    const del = await store.delete('/r/gone', gone.modRevision);
    // Compact past the tombstone: the newest log row is gone, the revision is not.
    await store.compact(del.revision);
    await store.close();

    const reopened = openSqliteStorage({ path });
    try {
      assert.equal(await reopened.currentRevision(), del.revision);
      assert.equal(reopened.compactRevision(), del.revision);
      assert.equal(dec((await reopened.get('/r/a'))!.value), 'a2');
      assert.deepEqual((await reopened.list('/r/')).items.map((kv) => dec(kv.value)), ['a2', 'b']);
      const next = await reopened.create('/r/c', enc('c'));
      assert.equal(next.modRevision, del.revision + 1, 'revisions are never reused');
      await expectCode(reopened.list('/r/', { revision: del.revision - 1 }), 'Compacted');
    } finally {
      await reopened.close();
    }
  });

  it('close commits queued writes first and later calls fail with Closed', async () => {
    const { store, path } = await freshStore();
    const pending = store.create('/c/a', enc('a'));
    await store.close();
    assert.equal((await pending).modRevision, 1);
    await store.close();
    await expectCode(store.create('/c/b', enc('b')), 'Closed');
    const reopened = openSqliteStorage({ path });
    try {
      assert.equal(dec((await reopened.get('/c/a'))!.value), 'a');
    } finally {
      await reopened.close();
    }
  });

  it('a second opener of the same file fails loudly with Unavailable', () =>
    withStore(async (_s, path) => {
      assert.throws(
        () => openSqliteStorage({ path, lockTimeoutMs: 50 }),
        (e: unknown) => isStorageError(e, 'Unavailable'),
      );
    }));

  it('invalid arguments are refused with InvalidArgument', () =>
    withStore(async (s) => {
      await expectCode(s.create('', enc('x')), 'InvalidArgument');
      await expectCode(s.update('/i/a', enc('x'), -1), 'InvalidArgument');
      await expectCode(s.list('/i/', { limit: -1 }), 'InvalidArgument');
      await expectCode(s.list('/i/', { revision: 1.5 }), 'InvalidArgument');
      await expectCode(s.compact(-3), 'InvalidArgument');
      await expectCode(takeEvents(s.watch('/i/', -1), 1), 'InvalidArgument');
    }));

  it('compacting to a future revision fails with FutureRevision', () =>
    withStore(async (s) => {
      await s.create('/f/a', enc('a'));
      await expectCode(s.compact(5), 'FutureRevision');
    }));

  it('lists and watches at old revisions agree whichever path serves them', () =>
    withStore(
      async (s) => {
        // Ten keys, a snapshot, then more than 8192 revisions of churn elsewhere
        // and a few changes under the prefix.
        for (let i = 0; i < 10; i++) await s.create(`/old/k${i}`, enc(`v${i}`));
        const snapshot = await s.currentRevision();
        const early = await s.list('/old/', { revision: snapshot, limit: 3 });
        assert.equal(early.revision, snapshot);
        const counter = await s.create('/churn/counter', enc('0'));
        const others = Array.from({ length: 64 }, (_, i) => `/churn/w${i}`);
        await Promise.all(others.map((k) => s.create(k, enc('0'))));
        for (let round = 0; round < 130; round++) {
          const kvs = await Promise.all(others.map(async (k) => (await s.get(k))!));
          await Promise.all(kvs.map((kv) => s.update(kv.key, enc(String(round)), kv.modRevision)));
        }
        assert.ok((await s.currentRevision()) - snapshot > 8192);
        const k0 = (await s.get('/old/k0'))!;
        await s.update('/old/k0', enc('changed'), k0.modRevision);
        await s.delete('/old/k5');
        await s.create('/old/k99', enc('new'));

        // A paged list at the snapshot: read from the log now.
        const seen: string[] = [];
        let page = early;
        for (;;) {
          for (const kv of page.items) seen.push(`${kv.key}=${dec(kv.value)}@${kv.modRevision}`);
          if (!page.more) break;
          page = await s.list('/old/', { revision: snapshot, limit: 3, continueFrom: page.items.at(-1)!.key });
        }
        assert.deepEqual(
          seen,
          Array.from({ length: 10 }, (_, i) => `/old/k${i}=v${i}@${i + 1}`),
        );
        // A list at a recent revision with no change under the prefix since: the current table.
        const recent = await s.currentRevision();
        await s.update('/churn/counter', enc('1'), counter.modRevision);
        const fromCurrent = await s.list('/old/', { revision: recent });
        assert.deepEqual(
          fromCurrent.items.map((kv) => `${kv.key}=${dec(kv.value)}`),
          [
            '/old/k0=changed',
            ...[1, 2, 3, 4, 6, 7, 8, 9].map((i) => `/old/k${i}=v${i}`),
            '/old/k99=new',
          ],
        );

        // A watch from far back on a narrow prefix: the names are matched in log_tail.
        const watch = s.watch('/old/', snapshot);
        try {
          const events = await takeEvents(watch, 3);
          assert.deepEqual(
            events.map((e) =>
              e.type === 'PUT'
                ? `PUT ${e.kv.key}=${dec(e.kv.value)} prev=${e.prevKv ? dec(e.prevKv.value) : '-'}`
                : `DELETE ${e.key} prev=${dec(e.prevKv.value)}`,
            ),
            ['PUT /old/k0=changed prev=v0', 'DELETE /old/k5 prev=v5', 'PUT /old/k99=new prev=-'],
          );
        } finally {
          watch.cancel();
        }
      },
      { synchronous: 'NORMAL' },
    ));

  it('lists, counts and watch replays at every readable past revision match the history, across deletes, re-creations and compaction', () =>
    withStore(
      async (s) => {
        // A seeded random history on eight keys (and writes next to the prefix),
        // with the state and the event after each revision kept as the model.
        let seed = 7;
        const random = (n: number): number => {
          seed ^= seed << 13; // xorshift32
          seed ^= seed >>> 17;
          seed ^= seed << 5;
          return (seed >>> 0) % n;
        };
        type Entry = { value: string; create: number; mod: number };
        const model = new Map<string, Entry>();
        const states = new Map<number, Map<string, Entry>>();
        const events = new Map<number, string>();
        const show = (key: string, e: Entry): string => `${key}=${e.value}@${e.create}/${e.mod}`;
        for (let i = 0; i < 240; i++) {
          const key = `/h/k${random(8)}`;
          const now = model.get(key);
          let revision: number;
          if (random(7) === 0) {
            // Just below and at the range's end ('/h0'): never in it.
            revision = (await s.create(`/h${random(2) === 0 ? '.' : '0'}/n${i}`, enc('next door'))).modRevision;
          } else if (now === undefined) {
            const kv = await s.create(key, enc(`c${i}`));
            revision = kv.modRevision;
            model.set(key, { value: `c${i}`, create: revision, mod: revision });
            events.set(revision, `PUT ${key}=c${i} prev=-`);
          } else if (random(3) === 0) {
            revision = (await s.delete(key, now.mod)).revision;
            model.delete(key);
            events.set(revision, `DELETE ${key} prev=${now.value}`);
          } else {
            revision = (await s.update(key, enc(`u${i}`), now.mod)).modRevision;
            model.set(key, { value: `u${i}`, create: now.create, mod: revision });
            events.set(revision, `PUT ${key}=u${i} prev=${now.value}`);
          }
          states.set(revision, new Map(model));
        }
        const last = await s.currentRevision();
        const compactTo = 60;
        await s.compact(compactTo);
        await expectCode(s.list('/h/', { revision: compactTo - 1 }), 'Compacted');

        const describeEvent = (e: StorageEvent): string =>
          e.type === 'PUT'
            ? `PUT ${e.kv.key}=${dec(e.kv.value)} prev=${e.prevKv ? dec(e.prevKv.value) : '-'}`
            : e.type === 'DELETE'
              ? `DELETE ${e.key} prev=${dec(e.prevKv.value)}`
              : 'PROGRESS';
        for (let revision = compactTo; revision <= last; revision++) {
          const state = states.get(revision)!;
          const expected = [...state].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, e]) => show(k, e));
          const all = await s.list('/h/', { revision });
          assert.deepEqual(all.items.map((kv) => show(kv.key, { value: dec(kv.value), create: kv.createRevision, mod: kv.modRevision })), expected, `list at ${revision}`);
          // Paged, with the count of what is left.
          const paged: string[] = [];
          let from: string | undefined;
          for (;;) {
            const page = await s.list('/h/', { revision, limit: 3, ...(from === undefined ? {} : { continueFrom: from }) });
            const left = expected.length - paged.length;
            paged.push(...page.items.map((kv) => show(kv.key, { value: dec(kv.value), create: kv.createRevision, mod: kv.modRevision })));
            if (!page.more) break;
            assert.equal(page.count, left, `count at ${revision} after ${String(from)}`);
            from = page.items.at(-1)!.key;
          }
          assert.deepEqual(paged, expected, `paged list at ${revision}`);
          if (revision % 10 === 0) {
            const wanted = [...events].filter(([r]) => r > revision).map(([, e]) => e);
            const watch = s.watch('/h/', revision);
            try {
              assert.deepEqual((await takeEvents(watch, wanted.length)).map(describeEvent), wanted, `replay from ${revision}`);
            } finally {
              watch.cancel();
            }
          }
        }
      },
      { synchronous: 'NORMAL' },
    ));

  it('a watch from a future revision skips the events up to it', () =>
    withStore(async (s) => {
      const base = await s.currentRevision();
      const watch = s.watch('/fw/', base + 2);
      try {
        for (let i = 1; i <= 4; i++) await s.create(`/fw/k${i}`, enc(String(i)));
        const events = await takeEvents(watch, 2);
        assert.deepEqual(events.map(eventRevision), [base + 3, base + 4]);
      } finally {
        watch.cancel();
      }
    }));

  it('watchers on many prefixes each get exactly their events, and cancelled ones none', () =>
    withStore(async (s) => {
      const from = await s.currentRevision();
      const prefixes = ['/', '/w/', '/w/ns-1/', '/w/ns-10/', '/w/ns-1'];
      for (let i = 0; i < 40; i++) prefixes.push(`/w/x${i}/`);
      const watches = prefixes.map((p) => ({ prefix: p, watch: s.watch(p, from) }));
      const cancelled = s.watch('/w/', from);
      cancelled.cancel();
      const keys = ['/w/ns-1/a', '/w/ns-10/a', '/w/ns-1x', '/w/x3/a', '/w/x30/b', '/other', '/w/x39/'];
      for (const key of keys) await s.create(key, enc(key));
      try {
        for (const { prefix, watch } of watches) {
          const expected = keys.filter((k) => k.startsWith(prefix));
          const events = await takeEvents(watch, expected.length);
          assert.deepEqual(
            events.map((e) => (e.type === 'PUT' ? e.kv.key : e.key)),
            expected,
            `watch on ${prefix}`,
          );
        }
      } finally {
        for (const { watch } of watches) watch.cancel();
      }
      const after: KeyValue[] = [];
      for await (const e of cancelled) if (e.type !== 'PROGRESS') after.push(e.type === 'PUT' ? e.kv : e.prevKv);
      assert.deepEqual(after, []);
    }));

  it('compaction deletes superseded rows and tombstones and keeps the file bounded', async () => {
    const { store, path } = await freshStore({ synchronous: 'NORMAL' });
    const value = new Uint8Array(4096).fill(1);
    const keys = Array.from({ length: 20 }, (_, i) => `/cf/k${i}`);
    for (const key of keys) await store.create(key, value);
    const sizes: number[] = [];
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 20; i++) {
        const kvs = await Promise.all(keys.map(async (k) => (await store.get(k))!));
        await Promise.all(kvs.map((kv) => store.update(kv.key, value, kv.modRevision)));
      }
      const temp = await store.create(`/cf/temp${round}`, value);
      await store.delete(temp.key, temp.modRevision);
      await store.compact(await store.currentRevision());
      sizes.push(await fileBytes(path));
    }
    const current = await store.currentRevision();
    assert.equal(store.compactRevision(), current);
    await store.close();
    const rows = withRawDb(path, (db) => db.prepare('SELECT COUNT(*) AS n FROM log').get() as { n: number });
    assert.equal(rows.n, keys.length, 'only each live key\'s latest row is left');
    // Each round writes ~1.6 MB; the file stops growing once freed pages are reused.
    const settled = sizes[3]!;
    assert.ok(sizes.at(-1)! <= settled * 1.5 + 1024 * 1024, `file sizes per round: ${sizes.join(', ')}`);
  });

  it('periodic compaction compacts to the revision of the previous tick', () =>
    withStore(
      async (s) => {
        let kv = await s.create('/pc/a', enc('0'));
        for (let i = 1; i <= 5; i++) kv = await s.update('/pc/a', enc(String(i)), kv.modRevision);
        const target = kv.modRevision;
        await waitFor(() => s.compactRevision() === target, `compaction to ${target}`);
        assert.ok(s.compactRevision() <= (await s.currentRevision()));
        await expectCode(s.list('/pc/', { revision: target - 1 }), 'Compacted');
        assert.equal(dec((await s.get('/pc/a'))!.value), '5');
      },
      { compactIntervalMs: 20 },
    ));

  it('the raw writer runs the backend\'s write SQL on the same schema', async () => {
    const path = join(await tempDir(), 'raw.db');
    const db = new Database(path);
    try {
      initSchema(db, 'FULL');
      const write = newRawWriter(db);
      assert.equal(write([{ key: '/raw/a', value: enc('a') }, { key: '/raw/b', value: enc('b') }]), 2);
      assert.equal(write([{ key: '/raw/a', value: enc('a2') }]), 3);
    } finally {
      db.close();
    }
    const store = openSqliteStorage({ path });
    try {
      assert.equal(await store.currentRevision(), 3);
      const a = (await store.get('/raw/a'))!;
      assert.equal(dec(a.value), 'a2');
      assert.equal(a.modRevision, 3);
    } finally {
      await store.close();
    }
  });
});
