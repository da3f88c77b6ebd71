/**
 * The Storage interface on a real etcd v3 cluster, over our thin gRPC client.
 *
 * Every write is one etcd transaction whose guard is the precondition (create:
 * the key's create_revision is 0; update and conditional delete: its
 * mod_revision is the expected one), so nothing is ever read and then written.
 * Revisions are etcd's own (header.revision, kv.mod_revision,
 * kv.create_revision), and keys are stored exactly as given: the API server adds
 * `/registry` itself.
 *
 * @example
 *   const store = await newEtcdStorage({ endpoints: ['http://127.0.0.1:2379'] });
 *   const kv = await store.create('/registry/pods/default/a', bytes);
 *   await store.update(kv.key, newBytes, kv.modRevision);
 *   await store.close();
 */
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
  type DeleteResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageWatch,
} from '../interface.js';
import { WatchStream } from '../watch-stream.js';
import { EtcdClient, type EtcdClientOptions } from './etcd-client.js';
import { headerRevision, keyBytes, prefixRange, toKeyValue, toNumber } from './etcd-convert.js';
import { isEtcdCompacted, isEtcdFutureRevision, toStorageError } from './etcd-errors.js';
import { EtcdWatchHub } from './etcd-watch-hub.js';

export interface EtcdStorageOptions {
  /** etcd client URLs, e.g. `['http://127.0.0.1:2379']` (`--etcd-servers`). */
  readonly endpoints: readonly string[];
  /** How long newEtcdStorage waits for etcd to answer (default 20 s, as kube-apiserver's etcd client). */
  readonly dialTimeoutMs?: number;
  /** Deadline of each call (default 30 s; compaction gets 5 minutes). */
  readonly requestTimeoutMs?: number;
  /** TLS material for https:// endpoints. */
  readonly tls?: EtcdClientOptions['tls'];
}

const DEFAULT_DIAL_TIMEOUT_MS = 20_000;
const COMPACT_TIMEOUT_MS = 5 * 60_000;
/** The smallest key: a cheap single-key range whose header gives the revision. */
const SMALLEST_KEY = Buffer.from([0]);

/**
 * Connect to etcd and wait until it answers a read; a StorageError Unavailable if
 * it does not within `dialTimeoutMs`, InvalidArgument for unusable endpoints.
 */
export async function newEtcdStorage(options: EtcdStorageOptions): Promise<EtcdStorage> {
  const dialTimeoutMs = options.dialTimeoutMs ?? DEFAULT_DIAL_TIMEOUT_MS;
  const client = new EtcdClient({
    endpoints: options.endpoints,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.tls === undefined ? {} : { tls: options.tls }),
  });
  try {
    await client.waitUntilReady(Date.now() + dialTimeoutMs);
  } catch (e: unknown) {
    client.close();
    const reason = e instanceof Error ? e.message : String(e);
    throw unavailable(`etcd at ${options.endpoints.join(', ')} did not answer within ${dialTimeoutMs} ms: ${reason}`, e);
  }
  return new EtcdStorage(client);
}

export class EtcdStorage implements Storage {
  private readonly client: EtcdClient;
  private readonly hub: EtcdWatchHub;
  private closed = false;

  /** Prefer {@link newEtcdStorage}, which waits until etcd answers. The store owns `client`. */
  constructor(client: EtcdClient) {
    this.client = client;
    this.hub = new EtcdWatchHub(client);
  }

  /** Number of running watches (they share one etcd stream). */
  get watchCount(): number {
    return this.hub.size;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    try {
      const response = await this.client.range({ key: keyBytes(key) });
      const kv = response.kvs[0];
      return kv === undefined ? undefined : toKeyValue(kv);
    } catch (e: unknown) {
      throw this.failure(e, 'Range', key);
    }
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const { revision = 0, limit = 0, continueFrom } = options;
    checkRevision('list revision', revision);
    if (!Number.isSafeInteger(limit) || limit < 0) throw invalidArgument(`list limit ${limit} is not a count`);
    const range = prefixRange(prefix);
    let start = range.key;
    if (continueFrom !== undefined) {
      const after = keyBytes(`${continueFrom}\0`); // the first key after continueFrom
      if (Buffer.compare(after, start) > 0) start = after;
    }
    try {
      const response = await this.client.range({ key: start, range_end: range.range_end, limit, revision });
      return {
        items: response.kvs.map(toKeyValue),
        revision: revision > 0 ? revision : headerRevision(response.header),
        more: response.more,
        ...(response.more ? { count: Number(response.count) } : {}),
      };
    } catch (e: unknown) {
      if (revision > 0 && isEtcdCompacted(e)) throw compacted(revision, await this.oldestRevisionAfter(revision));
      if (revision > 0 && isEtcdFutureRevision(e)) throw futureRevision(revision, await this.currentRevision());
      throw this.failure(e, 'Range', prefix);
    }
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.checkWrite(key, value);
    const k = keyBytes(key);
    try {
      const response = await this.client.txn({
        compare: [{ key: k, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
        success: [{ request_put: { key: k, value } }],
      });
      // A failed guard is proof enough that the key exists: no read needed.
      if (!response.succeeded) throw keyExists(key);
      const revision = headerRevision(response.header);
      return { key, value: new Uint8Array(value), createRevision: revision, modRevision: revision };
    } catch (e: unknown) {
      throw this.failure(e, 'create', key);
    }
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    this.checkWrite(key, value);
    checkRevision('expected revision', expectedModRevision);
    const k = keyBytes(key);
    try {
      const response = await this.client.txn({
        compare: [
          { key: k, target: 'MOD', result: 'EQUAL', mod_revision: expectedModRevision },
          // An absent key has mod_revision 0: never let an update create it.
          { key: k, target: 'VERSION', result: 'GREATER', version: 0 },
        ],
        success: [{ request_put: { key: k, value, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      });
      if (!response.succeeded) {
        const current = response.responses[0]?.response_range?.kvs[0];
        if (current === undefined) throw keyNotFound(key);
        throw conflict(key, expectedModRevision, toKeyValue(current));
      }
      const prev = response.responses[0]?.response_put?.prev_kv;
      if (prev === null || prev === undefined) throw new Error('etcd put in a transaction returned no prev_kv');
      return {
        key,
        value: new Uint8Array(value),
        createRevision: toNumber(prev.create_revision, 'create_revision'),
        modRevision: headerRevision(response.header),
      };
    } catch (e: unknown) {
      throw this.failure(e, 'update', key);
    }
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.checkOpen();
    if (expectedModRevision !== undefined) checkRevision('expected revision', expectedModRevision);
    const k = keyBytes(key);
    try {
      if (expectedModRevision === undefined) {
        const response = await this.client.deleteRange({ key: k, prev_kv: true });
        const prev = response.prev_kvs[0];
        if (prev === undefined) throw keyNotFound(key);
        return { prevKv: toKeyValue(prev), revision: headerRevision(response.header) };
      }
      const response = await this.client.txn({
        compare: [{ key: k, target: 'MOD', result: 'EQUAL', mod_revision: expectedModRevision }],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      });
      if (!response.succeeded) {
        const current = response.responses[0]?.response_range?.kvs[0];
        if (current === undefined) throw keyNotFound(key);
        throw conflict(key, expectedModRevision, toKeyValue(current));
      }
      // The guard also holds for an absent key and expected revision 0: then nothing was deleted.
      const prev = response.responses[0]?.response_delete_range?.prev_kvs[0];
      if (prev === undefined) throw keyNotFound(key);
      return { prevKv: toKeyValue(prev), revision: headerRevision(response.header) };
    } catch (e: unknown) {
      throw this.failure(e, 'delete', key);
    }
  }

  watch(prefix: string, fromRevision: number): StorageWatch {
    try {
      checkRevision('watch revision', fromRevision);
    } catch (e: unknown) {
      const stream = new WatchStream();
      stream.fail(e);
      return stream;
    }
    return this.hub.watch(prefixRange(prefix), fromRevision);
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    try {
      const response = await this.client.range({ key: SMALLEST_KEY, count_only: true });
      return headerRevision(response.header);
    } catch (e: unknown) {
      throw this.failure(e, 'Range');
    }
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    checkRevision('compact revision', revision);
    if (revision === 0) return; // nothing lies before revision 0
    try {
      // physical: return only once the old revisions are gone from etcd's database.
      await this.client.compact({ revision, physical: true }, { timeoutMs: COMPACT_TIMEOUT_MS });
    } catch (e: unknown) {
      if (isEtcdCompacted(e)) return; // already compacted at or past `revision`
      if (isEtcdFutureRevision(e)) throw futureRevision(revision, await this.currentRevision());
      throw this.failure(e, 'Compact');
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.close();
    this.client.close(); // cancels calls under way: they fail with Closed
  }

  /**
   * etcd's compact revision, given a revision known to be compacted: the oldest
   * revision a Range can still read. etcd's KV API does not report it, so this
   * bisects with count-only single-key Ranges (about log2(current − known)
   * calls, and only on this error path).
   */
  private async oldestRevisionAfter(known: number): Promise<number> {
    try {
      let unreadable = known;
      let readable = await this.currentRevision(); // the current revision is never compacted
      while (readable - unreadable > 1) {
        const middle = unreadable + Math.floor((readable - unreadable) / 2);
        if (await this.readableAt(middle)) readable = middle;
        else unreadable = middle;
      }
      return Math.max(readable, known + 1);
    } catch (e: unknown) {
      throw this.failure(e, 'Range');
    }
  }

  private async readableAt(revision: number): Promise<boolean> {
    try {
      await this.client.range({ key: SMALLEST_KEY, count_only: true, revision });
      return true;
    } catch (e: unknown) {
      if (isEtcdCompacted(e)) return false;
      throw e;
    }
  }

  private checkOpen(): void {
    if (this.closed) throw closed();
  }

  private checkWrite(key: string, value: Uint8Array): void {
    this.checkOpen();
    if (value.byteLength > MAX_VALUE_BYTES) throw tooLarge(key, value.byteLength, MAX_VALUE_BYTES);
  }

  /** The StorageError for a failed call; any failure after close() is Closed. */
  private failure(e: unknown, operation: string, key?: string): StorageError {
    if (e instanceof StorageError) return e;
    if (this.closed) return closed();
    return toStorageError(e, operation, key);
  }
}

function checkRevision(what: string, revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0) throw invalidArgument(`${what} ${revision} is not a revision`);
}
