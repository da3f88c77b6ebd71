import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isStorageError, type StorageErrorCode } from '../errors.js';
import { MAX_VALUE_BYTES, type StorageWatch } from '../interface.js';
import { runStorageConformance, takeEvents, withDeadline } from '../testing/conformance.js';
import { EtcdStorage, newEtcdStorage } from './etcd-storage.js';
import { newRawEtcdPutter } from './raw-put.js';
import { startEtcd, type EtcdProcess } from './testing/etcd-process.js';

const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const dec = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const uniquePrefix = (): string => `/etcd-test-${randomBytes(4).toString('hex')}/`;

let etcd: EtcdProcess | undefined;

before(async () => {
  etcd = await startEtcd();
});

after(async () => {
  await etcd?.stop();
});

function endpoint(): string {
  if (etcd === undefined) throw new Error('etcd did not start');
  return etcd.endpoint;
}

const openStore = (): Promise<EtcdStorage> => newEtcdStorage({ endpoints: [endpoint()] });

async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<unknown> {
  try {
    await promise;
  } catch (e: unknown) {
    assert.ok(isStorageError(e, code), `expected StorageError ${code}, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

/** Resolve once `condition()` holds, checking every 10 ms; fail at the deadline. */
async function eventually(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

runStorageConformance('etcd', openStore);

describe('etcd storage', () => {
  it('fails with Unavailable within the dial timeout when nothing listens', async () => {
    const port = await freePort();
    const started = Date.now();
    const e = await expectStorageError(
      newEtcdStorage({ endpoints: [`http://127.0.0.1:${port}`], dialTimeoutMs: 500 }),
      'Unavailable',
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 400, `waited for the dial timeout (${elapsed} ms)`);
    assert.ok(elapsed < 3000, `gave up soon after the dial timeout (${elapsed} ms)`);
    assert.match(String((e as Error).message), new RegExp(`127\\.0\\.0\\.1:${port}`));
  });

  it('rejects unusable endpoints with InvalidArgument', async () => {
    await expectStorageError(newEtcdStorage({ endpoints: [] }), 'InvalidArgument');
    await expectStorageError(newEtcdStorage({ endpoints: ['etcd:2379'] }), 'InvalidArgument');
  });

  it('stores keys exactly as given, with binary values and non-ASCII keys', async () => {
    const s = await openStore();
    try {
      const p = uniquePrefix();
      const value = randomBytes(64 * 1024);
      const keys = [`${p}ü/日本`, `${p}emoji-😀`, `${p}plain`];
      for (const key of keys) await s.create(key, value);
      for (const key of keys) {
        const got = await s.get(key);
        assert.ok(got);
        assert.equal(got.key, key);
        assert.ok(Buffer.from(got.value).equals(value));
      }
      const listed = await s.list(p);
      assert.deepEqual(
        listed.items.map((kv) => kv.key),
        [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      // Only the caller's key: no prefix of ours in etcd.
      const raw = await s.list(`${p}plain`);
      assert.equal(raw.items[0]?.key, `${p}plain`);
    } finally {
      await s.close();
    }
  });

  it("etcd's own request limit: a value of exactly 1.5 MiB is refused with TooLarge, nothing written", async () => {
    // etcd's --max-request-bytes (1.5 MiB by default) bounds the whole request,
    // key and transaction included, so the last few dozen bytes below the limit
    // fail there; we report it as TooLarge too.
    const s = await openStore();
    try {
      const p = uniquePrefix();
      const before = await s.currentRevision();
      const e = await expectStorageError(s.create(`${p}big`, new Uint8Array(MAX_VALUE_BYTES)), 'TooLarge');
      assert.match((e as Error).message, /request is too large/);
      assert.equal(await s.currentRevision(), before);
      const kv = await s.create(`${p}almost`, new Uint8Array(MAX_VALUE_BYTES - 1024));
      assert.equal((await s.get(kv.key))?.value.length, MAX_VALUE_BYTES - 1024);
    } finally {
      await s.close();
    }
  });

  it('lists every key with an empty prefix, paged', async () => {
    const s = await openStore();
    try {
      const p = uniquePrefix();
      await s.create(`${p}a`, enc('a'));
      await s.create(`${p}b`, enc('b'));
      const all = await s.list('');
      assert.ok(all.items.some((kv) => kv.key === `${p}a`));
      assert.ok(all.items.some((kv) => kv.key === `${p}b`));
      const first = await s.list('', { limit: 1 });
      assert.equal(first.items.length, 1);
      assert.equal(first.more, true);
      // continueFrom before the prefix does not leak keys outside it.
      const clamped = await s.list(p, { continueFrom: '/' });
      assert.deepEqual(clamped.items.map((kv) => dec(kv.value)), ['a', 'b']);
    } finally {
      await s.close();
    }
  });

  it('a watch from the revision just before a compaction fails, as a list there does', async () => {
    const s = await openStore();
    try {
      const p = uniquePrefix();
      await s.create(`${p}a`, enc('a'));
      // A deletion at exactly the compact revision: etcd drops its tombstone.
      const deleted = await s.delete(`${p}a`);
      await s.compact(deleted.revision);
      const before = deleted.revision - 1;
      const e = await expectStorageError(takeEvents(s.watch(p, before), 1), 'Compacted');
      assert.equal((e as { compactRevision?: number }).compactRevision, deleted.revision);
      await expectStorageError(s.list(p, { revision: before }), 'Compacted');
      // From the compact revision itself: only what follows.
      const watch = s.watch(p, deleted.revision);
      try {
        const created = await s.create(`${p}b`, enc('b'));
        const [event] = await takeEvents(watch, 1);
        assert.ok(event?.type === 'PUT');
        assert.equal(event.kv.modRevision, created.modRevision);
      } finally {
        watch.cancel();
      }
    } finally {
      await s.close();
    }
  });

  it('compaction: a future revision fails with FutureRevision, an old one is a no-op', async () => {
    const s = await openStore();
    try {
      const p = uniquePrefix();
      const kv = await s.create(`${p}a`, enc('a'));
      const current = await s.currentRevision();
      const e = await expectStorageError(s.compact(current + 100), 'FutureRevision');
      assert.equal((e as { currentRevision?: number }).currentRevision, current);
      await s.compact(kv.modRevision);
      await s.compact(kv.modRevision);
      await s.compact(kv.modRevision - 1);
      await s.compact(0);
      await expectStorageError(s.compact(-1), 'InvalidArgument');
    } finally {
      await s.close();
    }
  });

  it('a cancelled watch ends cleanly and etcd stops sending to it', async () => {
    const s = await openStore();
    try {
      const p = uniquePrefix();
      const watch = s.watch(p, await s.currentRevision());
      await s.create(`${p}a`, enc('a'));
      const [event] = await takeEvents(watch, 1);
      assert.ok(event?.type === 'PUT');
      assert.equal(s.watchCount, 1);
      watch.cancel();
      assert.equal(s.watchCount, 0);
      const rest: string[] = [];
      await withDeadline(
        (async () => {
          for await (const e of watch) rest.push(e.type);
        })(),
        5000,
        'the cancelled watch to end',
      );
      assert.deepEqual(rest, []);
      // The shared stream lives on for the other watches.
      const other = s.watch(p, await s.currentRevision());
      await s.create(`${p}b`, enc('b'));
      assert.equal((await takeEvents(other, 1)).length, 1);
      other.cancel();
    } finally {
      await s.close();
    }
  });

  it('closing a store with running watches swallows the cancelled gRPC call', async () => {
    const unexpected: unknown[] = [];
    const onError = (e: unknown): void => {
      unexpected.push(e);
    };
    process.on('uncaughtException', onError);
    process.on('unhandledRejection', onError);
    try {
      const s = await openStore();
      const p = uniquePrefix();
      const from = await s.currentRevision();
      const watches = Array.from({ length: 5 }, () => s.watch(p, from));
      const kv = await s.create(`${p}a`, enc('a'));
      for (const watch of watches) {
        const events = await takeEvents(watch, 1);
        assert.equal(events[0]?.type === 'PUT' ? events[0].kv.modRevision : 0, kv.modRevision);
      }
      const ends = watches.map(async (watch) => {
        for await (const _ of watch) {
          // nothing more arrives
        }
        return 'ended';
      });
      await s.close();
      assert.deepEqual(await withDeadline(Promise.all(ends), 5000, 'the watches to end'), Array(5).fill('ended'));
      // Give a stray CANCELLED error every chance to surface: one more round trip on a fresh store.
      const probe = await openStore();
      await probe.currentRevision();
      await probe.close();
      assert.deepEqual(unexpected, []);
    } finally {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    }
  });

  it('calls under way when the store closes fail with Closed', async () => {
    const s = await openStore();
    const p = uniquePrefix();
    const calls = Array.from({ length: 20 }, (_, i) => s.create(`${p}k${i}`, enc('x')));
    const closing = s.close();
    const outcomes = await Promise.allSettled(calls);
    await closing;
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        assert.ok(isStorageError(outcome.reason, 'Closed'), `got ${String(outcome.reason)}`);
      }
    }
  });

  it('runs 1,000 watches on one store, each seeing exactly its own events', async () => {
    const s = await openStore();
    const count = 1000;
    const watches: StorageWatch[] = [];
    try {
      const p = uniquePrefix();
      const from = await s.currentRevision();
      for (let i = 0; i < count; i++) watches.push(s.watch(`${p}w${i}/`, from));
      assert.equal(s.watchCount, count);
      const created = await Promise.all(Array.from({ length: count }, (_, i) => s.create(`${p}w${i}/key`, enc(String(i)))));
      const seen = await Promise.all(watches.map((watch) => takeEvents(watch, 1, 60_000)));
      for (let i = 0; i < count; i++) {
        const event = seen[i]![0]!;
        assert.ok(event.type === 'PUT');
        assert.equal(event.kv.key, `${p}w${i}/key`);
        assert.equal(event.kv.modRevision, created[i]!.modRevision);
      }
      // A second round reaches the right watches again (no cross-talk after the first).
      const updated = await s.update(`${p}w7/key`, enc('again'), created[7]!.modRevision);
      const [again] = await takeEvents(watches[7]!, 1);
      assert.ok(again?.type === 'PUT');
      assert.equal(again.kv.modRevision, updated.modRevision);
      for (const watch of watches) watch.cancel();
      assert.equal(s.watchCount, 0);
    } finally {
      for (const watch of watches) watch.cancel();
      await s.close();
    }
  });

  it('a lost connection fails running watches and calls with Unavailable', async () => {
    const own = await startEtcd();
    try {
      const s = await newEtcdStorage({ endpoints: [own.endpoint], requestTimeoutMs: 5000 });
      try {
        const p = uniquePrefix();
        const kv = await s.create(`${p}a`, enc('a'));
        const watch = s.watch(p, kv.modRevision);
        const iterator = watch[Symbol.asyncIterator]();
        const pending = iterator.next().then(
          () => undefined,
          (error: unknown) => error,
        );
        await own.stop();
        const e = await withDeadline(pending, 15_000, 'the watch to fail');
        assert.ok(isStorageError(e, 'Unavailable'), `got ${String(e)}`);
        await expectStorageError(s.get(`${p}a`), 'Unavailable');
        await expectStorageError(s.create(`${p}b`, enc('b')), 'Unavailable');
        // A new watch on the dead store fails the same way instead of hanging.
        await expectStorageError(takeEvents(s.watch(p, kv.modRevision), 1, 15_000), 'Unavailable');
      } finally {
        await s.close();
      }
    } finally {
      await own.stop();
    }
  });

  it('the raw putter writes plain values', async () => {
    const raw = newRawEtcdPutter(endpoint());
    const s = await openStore();
    try {
      const p = uniquePrefix();
      await raw.put(`${p}raw`, enc('one'));
      await raw.put(`${p}raw`, enc('two'));
      const got = await s.get(`${p}raw`);
      assert.equal(dec(got!.value), 'two');
      assert.ok(got!.modRevision > got!.createRevision);
    } finally {
      raw.close();
      await s.close();
    }
  });

  it('startEtcd gives a running etcd with its own data directory, removed on stop', async () => {
    const own = await startEtcd();
    const { existsSync } = await import('node:fs');
    assert.ok(existsSync(own.dataDir));
    assert.doesNotThrow(() => process.kill(own.pid, 0));
    await own.stop();
    assert.equal(existsSync(own.dataDir), false);
    await eventually(
      () => {
        try {
          process.kill(own.pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      5000,
      'etcd to be gone',
    );
    await own.stop(); // idempotent
  });
});
