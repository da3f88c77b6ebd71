/**
 * FULL durability through our own WAL fsync: what happens when the fsync fails,
 * and the checkpoint the store runs itself once the WAL is large. The fsync is
 * replaced by a fake here (unit tests of the code around it); the real one runs
 * in every other sqlite test.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { isStorageError } from '../errors.js';
import { initSchema } from './schema.js';
import { openSqliteStorage, SqliteStorage, WalSyncer } from './sqlite-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'wal-sync-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A syncer whose fsync result the test decides. */
class FakeSyncer extends WalSyncer {
  fail = false;
  syncs = 0;
  override sync(done: (error: Error | undefined) => void): void {
    this.busy = true;
    this.syncs++;
    setImmediate(() => {
      this.busy = false;
      done(this.fail ? new Error('EIO: injected') : undefined);
    });
  }
  override close(): void {}
}

/** A syncer whose fsync ends when the test says so. */
class HeldSyncer extends WalSyncer {
  private pending: Array<(error: Error | undefined) => void> = [];
  override sync(done: (error: Error | undefined) => void): void {
    this.busy = true;
    this.pending.push((error) => {
      this.busy = false;
      done(error);
    });
  }
  /** End the running fsync (failed with `error` when given). */
  release(error?: Error): void {
    const p = this.pending;
    this.pending = [];
    for (const end of p) end(error);
  }
  running(): boolean {
    return this.pending.length > 0;
  }
  override close(): void {}
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Let the event loop turn until `condition` holds (at most 1,000 turns). */
async function waitForTurns(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await turn();
  assert.ok(condition(), 'the condition came within 1,000 turns');
}

/** Checkpoints the store ran on `db` (wal_checkpoint pragmas). */
function countCheckpoints(db: Database.Database): { count: number } {
  const counter = { count: 0 };
  const pragma = db.pragma.bind(db);
  db.pragma = ((source: string, options?: Database.PragmaOptions) => {
    if (source.startsWith('wal_checkpoint')) counter.count++;
    return pragma(source, options);
  }) as typeof db.pragma;
  return counter;
}

function open(
  name: string,
  syncer: WalSyncer,
  checkpointWalBytes?: number,
  databaseSyncer?: WalSyncer,
): { store: SqliteStorage; checkpoints: { count: number } } {
  const db = new Database(join(dir, name));
  initSchema(db, 'FULL');
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('synchronous = OFF');
  const checkpoints = countCheckpoints(db);
  const store = new SqliteStorage(db, {
    compactIntervalMs: 0,
    syncer,
    ...(checkpointWalBytes !== undefined ? { checkpointWalBytes } : {}),
    ...(databaseSyncer !== undefined ? { databaseSyncer } : {}),
  });
  return { store, checkpoints };
}

/** The names in the log table of the database file alone (a copy of it, without the WAL). */
function loggedInDatabaseFile(name: string): string[] {
  copyFileSync(join(dir, name), join(dir, `${name}-copy`));
  const copy = new Database(join(dir, `${name}-copy`));
  try {
    return (copy.prepare('SELECT name FROM log ORDER BY id').all() as { name: string }[]).map((r) => r.name);
  } finally {
    copy.close();
  }
}

describe('sqlite WAL fsync', () => {
  it('acknowledges a write only after its fsync, and fails the writes and the store when the fsync fails', async () => {
    const syncer = new FakeSyncer(join(dir, 'fail.db-wal'));
    const { store } = open('fail.db', syncer);
    const ok = await store.create('/k/a', Buffer.from('a'));
    assert.equal(ok.modRevision, 1);
    assert.ok(syncer.syncs >= 1, 'the write waited for an fsync');
    syncer.fail = true;
    await assert.rejects(store.create('/k/b', Buffer.from('b')), (e: unknown) => isStorageError(e, 'Unavailable') && /fsync of the sqlite WAL failed/.test(e.message));
    await assert.rejects(store.get('/k/a'), (e: unknown) => isStorageError(e, 'Closed'));
  });

  it('checkpoints the WAL itself into the database, leaving the WAL file to be reused, and keeps every write', async () => {
    const syncer = new FakeSyncer(join(dir, 'cp.db-wal'));
    const { store, checkpoints } = open('cp.db', syncer, 1); // every sync is followed by a checkpoint
    await store.create('/k/a', Buffer.from('a'));
    await store.create('/k/b', Buffer.from('b'));
    assert.equal(checkpoints.count, 2);
    // The database file alone (a copy, without the WAL) holds the writes.
    copyFileSync(join(dir, 'cp.db'), join(dir, 'cp-copy.db'));
    const copy = new Database(join(dir, 'cp-copy.db'));
    try {
      assert.deepEqual(copy.prepare('SELECT name FROM log ORDER BY id').all(), [{ name: '/k/a' }, { name: '/k/b' }]);
    } finally {
      copy.close();
    }
    assert.ok(statSync(join(dir, 'cp.db-wal')).size > 0, 'PASSIVE left the WAL file as it was');
    await store.create('/k/c', Buffer.from('c'));
    await store.close();
    const reopened = openSqliteStorage({ path: join(dir, 'cp.db'), compactIntervalMs: 0 });
    try {
      assert.deepEqual((await reopened.list('/k/')).items.map((kv) => Buffer.from(kv.value).toString()), ['a', 'b', 'c']);
      assert.equal(await reopened.currentRevision(), 3);
    } finally {
      await reopened.close();
    }
  });

  it('checkpoints after about the limit\'s worth of WAL, not at every fsync', async () => {
    const syncer = new FakeSyncer(join(dir, 'growth.db-wal'));
    const { store, checkpoints } = open('growth.db', syncer, 1024 * 1024);
    const value = Buffer.alloc(10_000, 'v');
    // 10 MB of values in 100 batches of 10, each written after the previous one is acknowledged.
    for (let i = 0; i < 100; i++) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => store.create(`/g/${i}-${j}`, value)));
    }
    // The WAL holds at least the values: 10 MB or more, so at least 5 checkpoints of a 1 MB WAL; one per batch would be 100.
    assert.ok(checkpoints.count >= 5 && checkpoints.count <= 40, `${checkpoints.count} checkpoints`);
    assert.ok(statSync(join(dir, 'growth.db-wal')).size < 4 * 1024 * 1024, 'the WAL file stays near the limit');
    await store.close();
  });

  it('commits the writes flushed while an fsync runs in one transaction when it ends, in order, and acknowledges them after the next fsync', async () => {
    const syncer = new HeldSyncer(join(dir, 'held.db-wal'));
    const { store } = open('held.db', syncer);
    const acknowledged: string[] = [];
    const write = (key: string, p: Promise<unknown>): Promise<unknown> => p.then(() => acknowledged.push(key));
    const first = write('a', store.create('/k/a', Buffer.from('a')));
    await turn();
    assert.ok(syncer.running(), 'the first batch is being synced');
    // Three writes in three later turns: each flush finds the fsync running.
    const later = [write('b', store.create('/k/b', Buffer.from('b')))];
    await turn();
    later.push(write('c', store.update('/k/b', Buffer.from('c'), 2)));
    await turn();
    later.push(write('d', store.create('/k/b', Buffer.from('d')).catch((e: unknown) => assert.ok(isStorageError(e, 'KeyExists')))));
    await turn();
    assert.deepEqual(store.stats(), { batches: 1, writes: 1, meanBatchSize: 1 }, 'nothing committed while the fsync runs');
    syncer.release();
    await first;
    assert.deepEqual(acknowledged, ['a']);
    assert.deepEqual(store.stats(), { batches: 2, writes: 4, meanBatchSize: 2 }, 'the held writes went in one transaction');
    assert.ok(syncer.running(), 'their fsync started');
    syncer.release();
    await Promise.all(later);
    assert.deepEqual(acknowledged, ['a', 'b', 'c', 'd']);
    assert.equal(Buffer.from((await store.get('/k/b'))!.value).toString(), 'c');
    await store.close();
  });

  it('fsyncs the database after a checkpoint off the event loop, and holds writes until that fsync ends', async () => {
    const databaseSyncer = new HeldSyncer(join(dir, 'dbsync.db'));
    const { store, checkpoints } = open('dbsync.db', new FakeSyncer(join(dir, 'dbsync.db-wal')), 1, databaseSyncer);
    assert.equal((await store.create('/k/a', Buffer.from('a'))).modRevision, 1);
    await waitForTurns(() => databaseSyncer.running());
    assert.equal(checkpoints.count, 1);
    assert.deepEqual(loggedInDatabaseFile('dbsync.db'), ['/k/a'], 'the checkpoint copied the WAL into the database file');
    // Writes wait while the database's fsync runs: the first of them would start the WAL over.
    const b = store.create('/k/b', Buffer.from('b'));
    const c = store.create('/k/c', Buffer.from('c'));
    for (let i = 0; i < 5; i++) await turn();
    assert.deepEqual(store.stats(), { batches: 1, writes: 1, meanBatchSize: 1 }, 'nothing committed during the fsync');
    assert.equal((await store.get('/k/a'))?.modRevision, 1, 'reads go on');
    databaseSyncer.release();
    assert.deepEqual([(await b).modRevision, (await c).modRevision], [2, 3]);
    assert.deepEqual(store.stats(), { batches: 2, writes: 3, meanBatchSize: 1.5 }, 'the held writes went in one transaction');
    while (databaseSyncer.running()) databaseSyncer.release();
    const closing = store.close();
    while (!(await Promise.race([closing.then(() => true), turn().then(() => false)]))) databaseSyncer.release();
    const reopened = openSqliteStorage({ path: join(dir, 'dbsync.db'), compactIntervalMs: 0 });
    try {
      assert.deepEqual((await reopened.list('/k/')).items.map((kv) => Buffer.from(kv.value).toString()), ['a', 'b', 'c']);
    } finally {
      await reopened.close();
    }
  });

  it('fails the held writes and the store when the database fsync after a checkpoint fails', async () => {
    const databaseSyncer = new HeldSyncer(join(dir, 'dbfail.db'));
    const { store } = open('dbfail.db', new FakeSyncer(join(dir, 'dbfail.db-wal')), 1, databaseSyncer);
    await store.create('/k/a', Buffer.from('a')); // acknowledged after its WAL fsync; the checkpoint follows
    await waitForTurns(() => databaseSyncer.running());
    const b = store.create('/k/b', Buffer.from('b'));
    for (let i = 0; i < 5; i++) await turn(); // b is held behind the database fsync
    databaseSyncer.release(new Error('EIO: injected'));
    await assert.rejects(b, (e: unknown) => isStorageError(e, 'Unavailable') && /fsync of the sqlite database after a checkpoint failed/.test(e.message));
    await assert.rejects(store.get('/k/a'), (e: unknown) => isStorageError(e, 'Closed'));
  });

  it('a compaction waits for the database fsync after a checkpoint, and a checkpoint waits for a compaction\'s WAL frames to be synced', async () => {
    const databaseSyncer = new HeldSyncer(join(dir, 'dbcompact.db'));
    const walSyncer = new HeldSyncer(join(dir, 'dbcompact.db-wal'));
    const { store, checkpoints } = open('dbcompact.db', walSyncer, 1, databaseSyncer);
    const write = async (key: string): Promise<void> => {
      const done = store.create(key, Buffer.from(key));
      await waitForTurns(() => walSyncer.running());
      walSyncer.release();
      await done;
    };
    await write('/k/a');
    await waitForTurns(() => databaseSyncer.running());
    assert.equal(checkpoints.count, 1);
    const compacted = store.compact(1);
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(store.compactRevision(), 0, 'the compaction waits for the database fsync');
    databaseSyncer.release();
    await compacted;
    assert.equal(store.compactRevision(), 1);

    // A compaction committed while a WAL fsync runs: that fsync may not cover its frames, so no checkpoint follows it.
    const b = store.create('/k/b', Buffer.from('b'));
    await waitForTurns(() => walSyncer.running());
    await store.compact(2);
    walSyncer.release();
    await b;
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(checkpoints.count, 1, 'no checkpoint after an fsync that began before the compaction');
    assert.ok(!databaseSyncer.running());
    await write('/k/c');
    await waitForTurns(() => databaseSyncer.running());
    assert.equal(checkpoints.count, 2, 'the next fsync covers it: the checkpoint runs');
    databaseSyncer.release();
    await store.close();
    assert.deepEqual(loggedInDatabaseFile('dbcompact.db'), ['/k/a', '/k/b', '/k/c'], 'a live key keeps its latest row');
  });

  it('close commits and syncs the writes held behind a running fsync', async () => {
    const syncer = new HeldSyncer(join(dir, 'held-close.db-wal'));
    const { store } = open('held-close.db', syncer);
    const a = store.create('/k/a', Buffer.from('a'));
    await turn();
    const b = store.create('/k/b', Buffer.from('b'));
    const closing = store.close();
    while (!(await Promise.race([closing.then(() => true), turn().then(() => false)]))) syncer.release();
    assert.equal((await a).modRevision, 1);
    assert.equal((await b).modRevision, 2);
    const reopened = openSqliteStorage({ path: join(dir, 'held-close.db'), compactIntervalMs: 0 });
    try {
      assert.equal(await reopened.currentRevision(), 2);
    } finally {
      await reopened.close();
    }
  });
});
