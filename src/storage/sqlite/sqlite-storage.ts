import { closeSync, fdatasync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  closed,
  compacted,
  conflict,
  futureRevision,
  invalidArgument,
  keyExists,
  keyNotFound,
  StorageError,
  tooLarge,
  unavailable,
} from '../errors.js';
import {
  MAX_VALUE_BYTES,
  prefixEnd,
  type DeleteResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type StorageWatch,
} from '../interface.js';
import { WatchStream } from '../watch-stream.js';
import { initSchema, SCHEMA_VERSION, type SynchronousLevel } from './schema.js';
import {
  Statements,
  type CurrentRow,
  type KeyRange,
  type ListRow,
  type ReplayRow,
} from './statements.js';
import { WalGrowth } from './wal-growth.js';
import { WatcherHub } from './watcher-hub.js';
import { GroupCommitQueue, type GroupCommitStats } from './write-queue.js';

/** Options of {@link openSqliteStorage}. */
export interface SqliteStorageOptions {
  /** The database file (`db/state.db` of the data directory); its directory is created if missing. */
  readonly path: string;
  /**
   * Durability of a commit. Default FULL: no write is acknowledged (and no
   * watcher sees it) before the WAL holding it has been fsynced, so an
   * acknowledged write survives power loss, as etcd's would. The fsync runs on
   * libuv's thread pool, off the event loop, and one fsync serves every batch
   * committed while the previous one ran (group commit twice over). NORMAL
   * skips the fsync (a process crash still loses nothing; a power cut may lose
   * the last writes).
   */
  readonly synchronous?: SynchronousLevel;
  /**
   * Periodic compaction, like upstream's --etcd-compaction-interval (default 5
   * minutes; 0 disables it). Each tick compacts to the revision that was current
   * at the previous tick, so at least one interval of history stays readable.
   */
  readonly compactIntervalMs?: number;
  /**
   * How long opening waits for another process to release the file (default 5
   * seconds) before failing with Unavailable; a store holds its file exclusively.
   */
  readonly lockTimeoutMs?: number;
}

/** Upstream's --etcd-compaction-interval default. */
export const DEFAULT_COMPACT_INTERVAL_MS = 5 * 60 * 1000;

/** At most this many revisions are compacted per transaction; the event loop runs between chunks. */
const COMPACT_CHUNK = 10_000;

/**
 * A list at an older revision checks whether anything under the prefix changed
 * since (and then reads the current table) only when fewer revisions than this
 * have passed; the check scans the log from that revision on.
 */
const CHANGED_SCAN_LIMIT = 8192;

interface OpBase {
  readonly key: string;
  readonly reject: (e: unknown) => void;
  error?: StorageError;
}
interface CreateOp extends OpBase {
  readonly kind: 'create';
  readonly value: Uint8Array;
  readonly resolve: (kv: KeyValue) => void;
  result?: KeyValue;
}
interface UpdateOp extends OpBase {
  readonly kind: 'update';
  readonly value: Uint8Array;
  readonly expected: number;
  readonly resolve: (kv: KeyValue) => void;
  result?: KeyValue;
}
interface DeleteOp extends OpBase {
  readonly kind: 'delete';
  readonly expected: number | undefined;
  readonly resolve: (result: DeleteResult) => void;
  result?: DeleteResult;
}
type WriteOp = CreateOp | UpdateOp | DeleteOp;

/**
 * The embedded storage backend (the cluster's default, as kine is k3s's): a
 * sqlite file holding a log of every write, whose row id is the revision, and
 * a table of each live key's current row.
 *
 * - Writes are group-committed ({@link GroupCommitQueue}): each call queues an
 *   operation; the queue is flushed in one transaction on the next turn of the
 *   event loop. Compare-and-swap checks run inside the transaction in queue
 *   order, so later operations see earlier ones; a failed check writes nothing.
 *   No promise settles before its transaction has committed.
 * - Watches are fed in-process right after each commit ({@link WatcherHub}); a
 *   new watch replays the log and registers in one synchronous step, so it sees
 *   every event after its start revision exactly once. Only this process may
 *   write the file (it holds an exclusive lock).
 * - Compaction deletes superseded rows and tombstones up to a revision, on
 *   request and periodically.
 */
export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly sql: Statements;
  private readonly hub = new WatcherHub();
  private readonly queue: GroupCommitQueue<WriteOp>;
  /** Runs a batch in one transaction; returns the last revision it wrote (the first given when none). */
  private readonly runBatch: (batch: WriteOp[], events: StorageEvent[], last: number) => number;
  private readonly timer: NodeJS.Timeout | undefined;
  /** Revision of the last committed write (in the database, perhaps not yet fsynced). */
  private revision: number;
  /** Revision up to which writes are durable and have been acknowledged and dispatched to watchers. */
  private durableRevision: number;
  /** FULL durability: fsyncs the WAL off the event loop; undefined for NORMAL. */
  private readonly syncer: WalSyncer | undefined;
  /** FULL durability: fsyncs the database file after a checkpoint copied the WAL into it (see checkpoint()). */
  private readonly databaseSyncer: WalSyncer | undefined;
  /** While the database file's fsync after a checkpoint runs: resolves when it ends. */
  private databaseSync: Promise<void> | undefined;
  /** Compaction transactions committed (their WAL frames are fsynced by the next WAL fsync that starts after them). */
  private compactionWrites = 0;
  /** FULL durability: when the store checkpoints the WAL itself (sqlite's own checkpoints are off). */
  private readonly walGrowth: WalGrowth;
  /** Bytes of a WAL frame: a page and its header. */
  private readonly walFrameBytes: number;
  /** Committed batches waiting for the next fsync, in commit order. */
  private unsynced: { batch: WriteOp[]; events: StorageEvent[]; upTo: number }[] = [];
  /**
   * Operations flushed while an fsync runs: they could not be acknowledged
   * before the next fsync anyway, so they are committed together, in one
   * transaction, when it ends (fewer, larger transactions for the same latency).
   */
  private held: WriteOp[] = [];
  /** Transactions run and the operations they held (see stats()). */
  private transactions = 0;
  private transactionOps = 0;
  /** Readers waiting until everything committed before they started is durable. */
  private durableWaiters: { upTo: number; resolve: () => void }[] = [];
  private compactRev: number;
  /** Compactions run one at a time, in call order. */
  private compaction: Promise<void> = Promise.resolve();
  /** The revision current at the previous compaction tick. */
  private tickRevision: number;
  private closed = false;

  /** Use {@link openSqliteStorage}. `db` must have the schema ({@link initSchema}). */
  constructor(
    db: Database.Database,
    options: { compactIntervalMs?: number; syncer?: WalSyncer; databaseSyncer?: WalSyncer; checkpointWalBytes?: number } = {},
  ) {
    this.db = db;
    this.syncer = options.syncer;
    this.databaseSyncer = options.syncer === undefined ? undefined : (options.databaseSyncer ?? new WalSyncer(db.name));
    this.walGrowth = new WalGrowth(options.checkpointWalBytes ?? CHECKPOINT_WAL_BYTES);
    this.walFrameBytes = 24 + (db.pragma('page_size', { simple: true }) as number);
    this.sql = new Statements(db);
    const version = this.sql.getMeta('schema_version');
    if (version !== SCHEMA_VERSION) {
      throw unavailable(
        `sqlite store "${db.name}" has schema version ${version}; this build reads version ${SCHEMA_VERSION}`,
      );
    }
    this.revision = this.sql.lastRevision();
    this.durableRevision = this.revision;
    this.compactRev = this.sql.getMeta('compact_revision');
    this.tickRevision = this.revision;
    this.queue = new GroupCommitQueue((batch) => this.commit(batch));
    this.runBatch = db.transaction((batch: WriteOp[], events: StorageEvent[], last: number): number => {
      // Revisions are consecutive: an operation whose check fails takes none.
      for (const op of batch) if (this.apply(op, events, last + 1)) last++;
      return last;
    });
    const interval = options.compactIntervalMs ?? DEFAULT_COMPACT_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => this.onCompactTick(), interval);
      this.timer.unref(); // compaction alone never keeps the process alive
    }
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen();
    checkKey(key);
    await this.awaitDurable();
    this.assertOpen();
    const row = this.sql.getCurrent.get(key);
    return row === undefined ? undefined : currentKv(key, row);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    await this.awaitDurable();
    this.assertOpen();
    if (typeof prefix !== 'string') throw invalidArgument('prefix must be a string');
    const limit = options.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0) throw invalidArgument(`invalid limit ${String(limit)}`);
    let revision = options.revision ?? 0;
    if (!Number.isSafeInteger(revision) || revision < 0) throw invalidArgument(`invalid revision ${String(revision)}`);
    if (revision === 0) revision = this.revision;
    if (revision > this.revision) throw futureRevision(revision, this.revision);
    if (revision < this.compactRev) throw compacted(revision, this.compactRev);

    const range: KeyRange = { prefix, end: prefixEnd(prefix), after: options.continueFrom };
    const fetch = limit > 0 ? limit + 1 : -1;
    // The current table serves the current revision, and an older one (a later
    // page of a paged list) when nothing in the range has changed since.
    const fromCurrent =
      revision === this.revision ||
      (this.revision - revision <= CHANGED_SCAN_LIMIT && !this.sql.changedSince(range, revision));
    const rows = fromCurrent ? this.sql.listCurrent(range, fetch) : this.sql.listAt(range, revision, fetch);
    const more = limit > 0 && rows.length > limit;
    if (!more) return { items: rows.map(listKv), revision, more };
    rows.length = limit;
    const count = fromCurrent ? this.sql.countCurrent(range) : this.sql.countAt(range, revision);
    return { items: rows.map(listKv), revision, more, count };
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return new Promise((resolve, reject) => {
      this.checkWrite(key, value);
      this.queue.push({ kind: 'create', key, value: new Uint8Array(value), resolve, reject });
    });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return new Promise((resolve, reject) => {
      this.checkWrite(key, value);
      checkRevision(expectedModRevision);
      this.queue.push({
        kind: 'update',
        key,
        value: new Uint8Array(value),
        expected: expectedModRevision,
        resolve,
        reject,
      });
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    return new Promise((resolve, reject) => {
      this.assertOpen();
      checkKey(key);
      if (expectedModRevision !== undefined) checkRevision(expectedModRevision);
      this.queue.push({ kind: 'delete', key, expected: expectedModRevision, resolve, reject });
    });
  }

  watch(prefix: string, fromRevision: number): StorageWatch {
    let unregister: (() => void) | undefined;
    const stream = new WatchStream(
      () => unregister?.(),
      (s) => this.answerProgress(s),
    );
    try {
      this.assertOpen();
      if (typeof prefix !== 'string') throw invalidArgument('prefix must be a string');
      if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) {
        throw invalidArgument(`invalid watch revision ${String(fromRevision)}`);
      }
      if (fromRevision < this.compactRev) throw compacted(fromRevision, this.compactRev);
      // Replay and registration happen in one synchronous step: no commit can
      // land in between, so the watch misses nothing and sees nothing twice.
      if (fromRevision < this.revision) {
        const range: KeyRange = { prefix, end: prefixEnd(prefix) };
        for (const row of this.sql.replay(range, fromRevision)) stream.push(replayEvent(row));
      }
      // The replay covered everything committed; batches still waiting for their
      // fsync are dispatched later, and this watcher has already seen them.
      unregister = this.hub.add(prefix, Math.max(fromRevision, this.revision), stream);
    } catch (e: unknown) {
      stream.fail(e instanceof StorageError ? e : unavailable('sqlite watch replay failed', e));
    }
    return stream;
  }

  /**
   * Watchers are fed once a batch is durable: progress is the durable
   * revision, given once it reaches the revision committed at the request
   * (right after the events of the batches in between are dispatched).
   */
  private answerProgress(stream: WatchStream): void {
    if (this.durableRevision >= this.revision) {
      stream.pushProgress(this.durableRevision);
      return;
    }
    this.durableWaiters.push({ upTo: this.revision, resolve: () => stream.pushProgress(this.durableRevision) });
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    await this.awaitDurable();
    return this.revision;
  }

  /**
   * Resolves once every write committed before the call is durable: a read
   * never returns less than what was acknowledged before it started. (It may
   * see a batch committed while it waited, whose acknowledgement is one fsync
   * away; only a power cut in that instant could take such a write back.)
   */
  private awaitDurable(): Promise<void> {
    if (this.durableRevision >= this.revision) return Promise.resolve();
    return new Promise((resolve) => this.durableWaiters.push({ upTo: this.revision, resolve }));
  }

  compact(revision: number): Promise<void> {
    try {
      this.assertOpen();
      checkRevision(revision);
      if (revision > this.revision) throw futureRevision(revision, this.revision);
    } catch (e: unknown) {
      return Promise.reject(e);
    }
    const run = this.compaction.then(() => this.compactTo(revision));
    this.compaction = run.catch(() => {}); // the caller sees the error; the chain goes on
    return run;
  }

  /** Flush queued writes (and their fsync), end running watches, and close the file. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true; // later calls fail with Closed; already queued writes still commit
    try {
      this.queue.flush();
      if (this.syncer !== undefined) {
        // Held operations are committed when the running fsync ends, then synced in turn.
        while (this.held.length > 0 || this.durableRevision < this.revision) {
          if (this.held.length > 0 && !this.syncer.busy && this.databaseSync === undefined) this.commitHeld();
          await new Promise<void>((resolve) => this.durableWaiters.push({ upTo: this.revision, resolve }));
        }
        while (this.databaseSync !== undefined) await this.databaseSync;
      }
      this.hub.endAll();
      for (const w of this.durableWaiters) w.resolve();
      this.durableWaiters = [];
      if (this.timer !== undefined) clearInterval(this.timer);
      // Closing checkpoints the WAL into the database: with FULL, sqlite fsyncs the database first.
      if (this.syncer !== undefined) this.db.pragma('synchronous = FULL');
      this.db.close();
      this.syncer?.close();
      this.databaseSyncer?.close();
    } catch (e: unknown) {
      throw unavailable('closing the sqlite store failed', e);
    }
  }

  /** Group-commit counters, per transaction: the benchmark's raw loop commits batches of `meanBatchSize`. */
  stats(): GroupCommitStats {
    return {
      batches: this.transactions,
      writes: this.transactionOps,
      meanBatchSize: this.transactions === 0 ? 0 : this.transactionOps / this.transactions,
    };
  }

  /** The revision compacted to: reads and watches below it give Compacted. */
  compactRevision(): number {
    return this.compactRev;
  }

  private async compactTo(target: number): Promise<void> {
    while (this.compactRev < target) {
      if (this.closed) throw closed();
      const from = this.compactRev;
      const to = Math.min(target, from + COMPACT_CHUNK);
      // No write may start the WAL over while the database's fsync after a checkpoint runs.
      while (this.databaseSync !== undefined) await this.databaseSync;
      if (this.closed) throw closed();
      this.db.transaction(() => {
        this.sql.compact(from, to);
        this.sql.setMeta('compact_revision', to);
      })();
      this.compactionWrites++;
      this.compactRev = to;
      // Let writes and reads run between chunks of a long compaction.
      if (to < target) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private onCompactTick(): void {
    const target = this.tickRevision;
    this.tickRevision = this.revision;
    if (this.closed || target <= this.compactRev) return;
    // A failure (the store closing, an I/O error) is retried by the next tick,
    // whose target covers this one.
    this.compact(target).catch(() => {});
  }

  /** A batch from the queue: committed now, or held while an fsync runs (FULL durability). */
  private commit(batch: WriteOp[]): void {
    if (this.syncer !== undefined && (this.syncer.busy || this.databaseSync !== undefined)) {
      for (const op of batch) this.held.push(op);
      return;
    }
    this.commitBatch(batch);
  }

  private commitHeld(): void {
    const batch = this.held;
    this.held = [];
    this.commitBatch(batch);
  }

  /** Commit one batch: run it in a transaction, then feed watchers, then settle the promises. */
  private commitBatch(batch: WriteOp[]): void {
    this.transactions++;
    this.transactionOps += batch.length;
    const events: StorageEvent[] = [];
    let last: number;
    try {
      last = this.runBatch(batch, events, this.revision);
    } catch (e: unknown) {
      // Rolled back: nothing of the batch was written.
      const error = unavailable('sqlite transaction failed', e);
      for (const op of batch) op.reject(error);
      return;
    }
    this.revision = last;
    if (this.syncer === undefined) {
      this.durableRevision = this.revision;
      this.hub.dispatch(events);
      settle(batch);
      return;
    }
    let valueBytes = 0;
    for (const op of batch) if (op.kind !== 'delete' && op.error === undefined) valueBytes += op.value.byteLength;
    this.walGrowth.recordBatch(batch.length, valueBytes);
    this.unsynced.push({ batch, events, upTo: this.revision });
    this.startSync();
  }

  /**
   * Fsync the WAL for every batch committed so far, then acknowledge them and
   * feed watchers, in commit order. Batches committed while an fsync runs wait
   * for the next one, which starts as soon as it ends.
   */
  private startSync(): void {
    const syncer = this.syncer!;
    if (syncer.busy || this.unsynced.length === 0) return;
    const pending = this.unsynced;
    this.unsynced = [];
    // The WAL frames of the compactions committed so far are durable when this fsync ends.
    const compactionsSynced = this.compactionWrites;
    syncer.sync((error) => {
      if (error !== undefined) {
        // The disk refused: nothing of these batches can be promised. Fail loudly.
        this.failDurability(unavailable('fsync of the sqlite WAL failed', error), pending);
        return;
      }
      for (const p of pending) {
        this.durableRevision = p.upTo;
        this.hub.dispatch(p.events);
        settle(p.batch);
      }
      this.releaseReaders();
      // A checkpoint copies only a WAL that is durable to its end (no compaction committed since the fsync began).
      if (this.walGrowth.due() && compactionsSynced === this.compactionWrites && this.checkpoint()) return;
      this.commitNext();
    });
  }

  /** After an fsync: commit the held writes (which starts the next fsync), or sync what is left. */
  private commitNext(): void {
    if (this.held.length > 0) this.commitHeld();
    else this.startSync();
  }

  /** The disk refused an fsync: fail what waits on it and the writes held behind it, end the watches, close the store. */
  private failDurability(failure: StorageError, pending: { batch: WriteOp[] }[] = []): void {
    for (const p of pending) for (const op of p.batch) op.reject(failure);
    for (const op of this.held) op.reject(failure);
    this.held = [];
    this.hub.endAll();
    this.closed = true;
  }

  private releaseReaders(): void {
    if (this.durableWaiters.length === 0) return;
    const waiting: typeof this.durableWaiters = [];
    for (const w of this.durableWaiters) {
      if (this.durableRevision >= w.upTo) w.resolve();
      else waiting.push(w);
    }
    this.durableWaiters = waiting;
  }

  /**
   * Copy the WAL into the database, so that the next write starts the WAL
   * over; returns whether the database's fsync was started (writes are held
   * until it ends, then {@link commitNext} runs). Automatic checkpoints are
   * off. The copy runs here with synchronous=OFF, so sqlite fsyncs neither
   * file: the WAL is durable already (the caller checkpoints right after a WAL
   * fsync that covered every frame), and the database file is fsynced here on
   * libuv's thread pool instead of on the event loop, where it took about 40%
   * of a checkpoint's 40 ms. Until that fsync ends no write may commit: the
   * first write after a complete checkpoint starts the WAL over, and a crash
   * must find the frames there until the database holds them durably. PASSIVE
   * leaves the file's length alone: it is overwritten from its start rather
   * than truncated and grown again, and journal_size_limit bounds it.
   */
  private checkpoint(): boolean {
    if (this.closed) return false;
    const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    this.walGrowth.checkpointed((result?.log ?? 0) * this.walFrameBytes);
    if ((result?.checkpointed ?? 0) <= 0) return false;
    this.databaseSync = new Promise<void>((resolve) => {
      this.databaseSyncer!.sync((error) => {
        this.databaseSync = undefined;
        resolve();
        if (error !== undefined) this.failDurability(unavailable('fsync of the sqlite database after a checkpoint failed', error));
        else this.commitNext();
      });
    });
    return true;
  }

  /**
   * Apply one operation inside the batch's transaction, writing revision `id`.
   * Returns false when its check failed (then `op.error` says why, and nothing
   * was written).
   */
  private apply(op: WriteOp, events: StorageEvent[], id: number): boolean {
    const { key } = op;
    const sql = this.sql;
    switch (op.kind) {
      case 'create': {
        // The primary key answers "does it exist?": no read before the write.
        if (sql.createCurrent.run(key, id, id).changes === 0) {
          op.error = keyExists(key);
          return false;
        }
        sql.insertLog.run(id, key, 0, 0, 0, op.value);
        const kv: KeyValue = { key, value: op.value, createRevision: id, modRevision: id };
        op.result = kv;
        if (!this.hub.empty && this.hub.matches(key)) events.push({ type: 'PUT', kv });
        return true;
      }
      case 'update': {
        // Read the old value first only when a watcher needs it as prevKv.
        const watched = !this.hub.empty && this.hub.matches(key);
        const prev = watched ? sql.getCurrent.get(key) : undefined;
        if (watched && prev === undefined) {
          op.error = keyNotFound(key);
          return false;
        }
        const swapped = sql.updateCurrent.get(id, key, op.expected);
        if (swapped === undefined) {
          const now = prev ?? sql.getCurrent.get(key);
          op.error = now === undefined ? keyNotFound(key) : conflict(key, op.expected, currentKv(key, now));
          return false;
        }
        sql.insertLog.run(id, key, 0, swapped.create_revision, op.expected, op.value);
        const kv: KeyValue = { key, value: op.value, createRevision: swapped.create_revision, modRevision: id };
        op.result = kv;
        if (prev !== undefined) events.push({ type: 'PUT', kv, prevKv: currentKv(key, prev) });
        return true;
      }
      case 'delete': {
        const row = sql.getCurrent.get(key);
        if (row === undefined) {
          op.error = keyNotFound(key);
          return false;
        }
        const prevKv = currentKv(key, row);
        if (op.expected !== undefined && row.mod_revision !== op.expected) {
          op.error = conflict(key, op.expected, prevKv);
          return false;
        }
        sql.insertLog.run(id, key, 1, row.create_revision, row.mod_revision, null);
        sql.deleteCurrent.run(key);
        op.result = { prevKv, revision: id };
        if (!this.hub.empty && this.hub.matches(key)) events.push({ type: 'DELETE', key, revision: id, prevKv });
        return true;
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw closed();
  }

  private checkWrite(key: string, value: Uint8Array): void {
    this.assertOpen();
    checkKey(key);
    if (!(value instanceof Uint8Array)) throw invalidArgument(`value of key "${key}" must be a Uint8Array`);
    if (value.byteLength > MAX_VALUE_BYTES) throw tooLarge(key, value.byteLength, MAX_VALUE_BYTES);
  }
}

/**
 * Open (creating if missing) the sqlite store at `options.path`, with its
 * directory. Fails with Unavailable when the file cannot be opened or another
 * process holds it.
 *
 * @example
 *   const store = openSqliteStorage({ path: join(dataDir, 'db', 'state.db') });
 *   const kv = await store.create('/registry/pods/default/a', bytes);
 */
export function openSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  let db: Database.Database | undefined;
  try {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    db = new Database(options.path, { timeout: options.lockTimeoutMs ?? 5000 });
    const level = options.synchronous ?? 'FULL';
    initSchema(db, level);
    // Take the exclusive lock now, so a second process fails at open rather than at its first write.
    db.exec('BEGIN IMMEDIATE; COMMIT');
    let syncer: WalSyncer | undefined;
    if (level === 'FULL' && options.path !== ':memory:') {
      // FULL durability, with the fsync done by us off the event loop (see SqliteStorageOptions).
      db.pragma('wal_autocheckpoint = 0');
      db.pragma('synchronous = OFF');
      syncer = new WalSyncer(`${options.path}-wal`);
    }
    return new SqliteStorage(db, {
      ...(options.compactIntervalMs === undefined ? {} : { compactIntervalMs: options.compactIntervalMs }),
      ...(syncer !== undefined ? { syncer } : {}),
    });
  } catch (e: unknown) {
    db?.close();
    if (e instanceof StorageError) throw e;
    throw unavailable(`cannot open sqlite store "${options.path}"`, e);
  }
}

function settle(batch: WriteOp[]): void {
  for (const op of batch) {
    if (op.error !== undefined) op.reject(op.error);
    else if (op.kind === 'delete') op.resolve(op.result!);
    else op.resolve(op.result!);
  }
}

/** The WAL is checkpointed into the database when about this much was written to it since the last time. */
const CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024;

/**
 * fdatasync of one of the store's files (the WAL, and the database after a
 * checkpoint) on libuv's thread pool, so the event loop keeps parsing requests
 * and filling the next batch while the disk works. The first sync also fsyncs
 * the directory, which makes the file's own entry durable.
 */
export class WalSyncer {
  private fd: number | undefined;
  private dirSynced = false;
  busy = false;

  constructor(private readonly path: string) {}

  sync(done: (error: Error | undefined) => void): void {
    this.busy = true;
    try {
      this.fd ??= openSync(this.path, 'r');
      if (!this.dirSynced) {
        const dir = openSync(dirname(this.path), 'r');
        try {
          fsyncSync(dir);
        } finally {
          closeSync(dir);
        }
        this.dirSynced = true;
      }
    } catch (e: unknown) {
      this.busy = false;
      done(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    fdatasync(this.fd, (error) => {
      this.busy = false;
      done(error ?? undefined);
    });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function checkKey(key: string): void {
  if (typeof key !== 'string' || key === '') throw invalidArgument('key must be a non-empty string');
}

function checkRevision(revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0) throw invalidArgument(`invalid revision ${String(revision)}`);
}

/** A plain Uint8Array view of a sqlite blob (no copy). */
function bytes(blob: Buffer): Uint8Array {
  return new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength);
}

function currentKv(key: string, row: CurrentRow): KeyValue {
  return { key, value: bytes(row.value), createRevision: row.create_revision, modRevision: row.mod_revision };
}

function listKv(row: ListRow): KeyValue {
  return {
    key: row.name,
    value: bytes(row.value),
    createRevision: row.create_revision,
    modRevision: row.mod_revision,
  };
}

function replayEvent(row: ReplayRow): StorageEvent {
  const prevKv: KeyValue | undefined =
    row.prev_id === null
      ? undefined
      : {
          key: row.name,
          value: bytes(row.prev_value ?? Buffer.alloc(0)),
          createRevision: row.prev_create_revision ?? row.prev_id,
          modRevision: row.prev_id,
        };
  if (row.deleted !== 0) {
    if (prevKv === undefined) {
      throw unavailable(`sqlite log row ${row.id} deletes "${row.name}" but its previous row is missing`);
    }
    return { type: 'DELETE', key: row.name, revision: row.id, prevKv };
  }
  const kv: KeyValue = {
    key: row.name,
    value: bytes(row.value ?? Buffer.alloc(0)),
    createRevision: row.create_revision,
    modRevision: row.id,
  };
  return prevKv === undefined ? { type: 'PUT', kv } : { type: 'PUT', kv, prevKv };
}
