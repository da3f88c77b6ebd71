/**
 * Object storage: typed API objects over the byte-level Storage. It encodes and
 * decodes objects (resourceVersion is never stored: it is the key's modRevision,
 * set on every read), retries compare-and-swap updates, filters lists and
 * watches with a predicate, and turns storage events into watch events.
 *
 * StorageErrors pass through unchanged; the generic store translates them into
 * API Status errors, once.
 */
import { isStorageError, keyNotFound } from '../../../storage/errors.js';
import type { KeyValue, Storage, StorageEvent, StorageWatch } from '../../../storage/interface.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { ObjectStore } from './object-store.js';
import { rememberJsonBytes } from '../../server/json-memo.js';

/** Decides whether an object belongs in a list or watch (label and field selectors). */
export type Predicate = (object: KubeObject) => boolean;

/** BOOKMARK only from the watch cache, to watchers that asked for bookmarks: its object carries just metadata.resourceVersion. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface ObjectEvent {
  readonly type: WatchEventType;
  /** For DELETED: the last state, with resourceVersion set to the deletion's revision. */
  readonly object: KubeObject;
  readonly revision: number;
}

/** A running watch over objects; ends when cancelled, throws a StorageError when it cannot go on. */
export interface ObjectWatch extends AsyncIterable<ObjectEvent> {
  cancel(): void;
}

export interface ObjectListOptions {
  /** Read at exactly this revision. */
  readonly revision?: number;
  /**
   * Any state at least this recent will do (resourceVersion=0 is 0;
   * resourceVersionMatch=NotOlderThan): the watch cache answers from memory.
   * Without revision or notOlderThan, the list is consistent (current).
   */
  readonly notOlderThan?: number;
  readonly limit?: number;
  /** Continue after this key (from the previous page). */
  readonly continueKey?: string;
  readonly predicate?: Predicate;
}

export interface ObjectListResult {
  readonly items: KubeObject[];
  readonly revision: number;
  /** The last key returned, when more items remain. */
  readonly continueKey?: string;
  /** When more items remain and no predicate filtered: how many (upstream's remainingItemCount). */
  readonly remainingItemCount?: number;
}

export interface ObjectWatchOptions {
  /** The watcher takes BOOKMARK events (allowWatchBookmarks): the watch cache sends them periodically. */
  readonly bookmarks?: boolean;
}

export interface CreateOptions {
  /**
   * The caller changes neither the object it passed nor the one it gets back
   * (they are one object) once the write is done: the watch cache may hold that
   * object instead of decoding the stored bytes again (recent-writes.ts).
   */
  readonly unchangedAfterWrite?: boolean;
}

export interface UpdateOptions {
  /** When the key is missing, call tryUpdate with undefined and create the result (PUT that creates). */
  readonly allowCreate?: boolean;
}

/** Returns the object to write, given the current one (undefined when creating); throw to abort. */
export type TryUpdate = (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;

export class ObjectStorage implements ObjectStore {
  constructor(readonly storage: Storage) {}

  async create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject> {
    if (options?.unchangedAfterWrite === true) return this.createEncoded(key, object, encodeForCreate(object));
    const kv = await this.storage.create(key, encode(object));
    return withResourceVersion(object, kv.modRevision);
  }

  /**
   * Create an object its caller leaves unchanged, already encoded: its JSON
   * with the resourceVersion is remembered for the response and watch events
   * (json-memo.ts), as it comes from the stored JSON without another stringify.
   */
  async createEncoded(key: string, object: KubeObject, encoded: EncodedForCreate): Promise<KubeObject> {
    const kv = await this.storage.create(key, encoded.bytes);
    withResourceVersion(object, kv.modRevision);
    const json = encoded.jsonWithResourceVersion(kv.modRevision);
    if (json !== undefined) rememberJsonBytes(object, json);
    return object;
  }

  async get(key: string): Promise<KubeObject | undefined> {
    const kv = await this.storage.get(key);
    return kv === undefined ? undefined : decode(kv);
  }

  async list(prefix: string, options: ObjectListOptions = {}): Promise<ObjectListResult> {
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const predicate = options.predicate;
    const items: KubeObject[] = [];
    let revision = options.revision;
    let from = options.continueKey;
    for (;;) {
      // Ask for a little more than needed when filtering, so that a selective
      // predicate does not cost one round trip per matching item.
      const pageLimit = limit === undefined ? undefined : predicate === undefined ? limit - items.length : Math.max(limit, 100);
      const page = await this.storage.list(prefix, {
        ...(revision !== undefined ? { revision } : {}),
        ...(pageLimit !== undefined ? { limit: pageLimit } : {}),
        ...(from !== undefined ? { continueFrom: from } : {}),
      });
      revision = page.revision;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i]!;
        const object = decode(kv);
        if (predicate !== undefined && !predicate(object)) continue;
        items.push(object);
        if (limit !== undefined && items.length === limit) {
          const more = i < page.items.length - 1 || page.more;
          if (!more) return { items, revision };
          // Without a predicate one page is the whole answer: the keys counted after it remain.
          const remaining = predicate === undefined && page.count !== undefined ? page.count - page.items.length : undefined;
          return { items, revision, continueKey: kv.key, ...(remaining !== undefined ? { remainingItemCount: remaining } : {}) };
        }
      }
      const last = page.items.at(-1);
      if (!page.more || last === undefined) return { items, revision };
      from = last.key;
    }
  }

  /**
   * Read, change and compare-and-swap until the write lands: a concurrent
   * writer makes it retry with the newer value, never lose an update. When
   * tryUpdate returns an object equal to the stored one, nothing is written.
   */
  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, options: UpdateOptions = {}): Promise<{ object: KubeObject; created: boolean }> {
    let current: KeyValue | undefined = await this.storage.get(key);
    for (;;) {
      if (current === undefined) {
        if (options.allowCreate !== true) throw keyNotFound(key);
        const created = await tryUpdate(undefined);
        try {
          return { object: await this.create(key, created), created: true };
        } catch (e: unknown) {
          if (!isStorageError(e, 'KeyExists')) throw e;
          current = await this.storage.get(key);
          continue;
        }
      }
      const next = await tryUpdate(decode(current));
      const bytes = encode(next);
      if (Buffer.compare(bytes, current.value) === 0) return { object: decode(current), created: false };
      try {
        const kv = await this.storage.update(key, bytes, current.modRevision);
        return { object: withResourceVersion(next, kv.modRevision), created: false };
      } catch (e: unknown) {
        if (isStorageError(e, 'Conflict')) {
          current = e.current;
          continue;
        }
        if (isStorageError(e, 'KeyNotFound')) {
          current = undefined;
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * Delete after `check` accepts the current object (preconditions, finalizers…);
   * retried like an update when the object changes in between.
   */
  async delete(key: string, check: (current: KubeObject) => void = () => {}): Promise<KubeObject> {
    let current = await this.storage.get(key);
    for (;;) {
      if (current === undefined) throw keyNotFound(key);
      const object = decode(current);
      check(object);
      try {
        await this.storage.delete(key, current.modRevision);
        return object;
      } catch (e: unknown) {
        if (isStorageError(e, 'Conflict')) {
          current = e.current;
          continue;
        }
        throw e;
      }
    }
  }

  /** Watch objects under the prefix after `fromRevision`; with a predicate, objects leaving it are DELETED. */
  watch(prefix: string, fromRevision: number, predicate?: Predicate, _options?: ObjectWatchOptions): ObjectWatch {
    const watch = this.storage.watch(prefix, fromRevision);
    return new FilteredWatch(watch, predicate);
  }

  currentRevision(): Promise<number> {
    return this.storage.currentRevision();
  }
}

class FilteredWatch implements ObjectWatch {
  constructor(
    private readonly watch: StorageWatch,
    private readonly predicate: Predicate | undefined,
  ) {}

  cancel(): void {
    this.watch.cancel();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ObjectEvent> {
    try {
      for await (const event of this.watch) {
        if (event.type === 'PROGRESS') continue; // never requested here
        const mapped = toObjectEvent(event, this.predicate);
        if (mapped !== undefined) yield mapped;
      }
    } finally {
      this.watch.cancel();
    }
  }
}

/** A storage event as a watcher with this predicate sees it, or undefined when it does not concern it. */
export function toObjectEvent(event: StorageEvent, predicate: Predicate | undefined): ObjectEvent | undefined {
  if (event.type === 'DELETE') {
    const old = decode(event.prevKv, event.revision);
    if (predicate !== undefined && !predicate(old)) return undefined;
    return { type: 'DELETED', object: old, revision: event.revision };
  }
  const revision = event.kv.modRevision;
  const object = decode(event.kv);
  if (predicate === undefined) return { type: event.prevKv === undefined ? 'ADDED' : 'MODIFIED', object, revision };
  const now = predicate(object);
  const before = event.prevKv !== undefined && predicate(decode(event.prevKv));
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object, revision };
  // It left the selector: for this watcher it is gone.
  if (before) return { type: 'DELETED', object: decode(event.prevKv!, revision), revision };
  return undefined;
}

/**
 * A key put last in metadata while the object is encoded, where
 * resourceVersion goes once it is set: its JSON text is searched for, and
 * must occur once and close metadata.
 */
const RV_MARK = '\u0000k8ts:resourceVersion\u0000';
const RV_MARK_JSON = `${JSON.stringify(RV_MARK)}:0`;

/** The stored form of a new object, and a way to its own JSON once its resourceVersion is set. */
export interface EncodedForCreate {
  /** encode(object). */
  readonly bytes: Buffer;
  /**
   * JSON.stringify(object) after metadata.resourceVersion has been set to
   * `revision` (it is added last, the object not changed otherwise), from the
   * same encoding; undefined when that cannot be known from it.
   */
  jsonWithResourceVersion(revision: number): Buffer | undefined;
}

const noJson = (): undefined => undefined;

/**
 * encode(object), with a mark at the end of metadata so that the object's own
 * JSON (what the response and watch events carry) is the stored JSON with
 * resourceVersion where the mark was: one stringify of the object for both,
 * each written straight into its buffer (no joined string). Only for an
 * object whose metadata has no resourceVersion and no selfLink (what the
 * store's create leaves).
 */
export function encodeForCreate(object: KubeObject): EncodedForCreate {
  const meta = object.metadata;
  if ('resourceVersion' in meta || 'selfLink' in meta || RV_MARK in meta) return { bytes: encode(object), jsonWithResourceVersion: noJson };
  const json = JSON.stringify({ ...object, metadata: { ...meta, [RV_MARK]: 0 } });
  const at = json.indexOf(RV_MARK_JSON);
  const end = at + RV_MARK_JSON.length;
  if (at < 0 || json.charCodeAt(end) !== 0x7d /* } */ || json.includes(RV_MARK_JSON, end)) return { bytes: encode(object), jsonWithResourceVersion: noJson };
  // The mark is metadata's only key, or follows a comma that goes with it.
  const comma = json.charCodeAt(at - 1) === 0x2c;
  const head = json.slice(0, comma ? at - 1 : at);
  const tail = json.slice(end);
  const headBytes = Buffer.byteLength(head, 'utf8');
  const bytes = Buffer.allocUnsafe(headBytes + Buffer.byteLength(tail, 'utf8'));
  bytes.write(head, 0, 'utf8');
  bytes.write(tail, headBytes, 'utf8');
  return {
    bytes,
    jsonWithResourceVersion: (revision) => {
      const rv = `${comma ? ',' : ''}"resourceVersion":"${revision}"`;
      const out = Buffer.allocUnsafe(bytes.length + rv.length);
      bytes.copy(out, 0, 0, headBytes);
      out.write(rv, headBytes, 'latin1');
      bytes.copy(out, headBytes + rv.length, headBytes);
      return out;
    },
  };
}

/** The stored form: JSON without resourceVersion (it is the key's revision). */
export function encode(object: KubeObject): Buffer {
  const { resourceVersion: _, selfLink: __, ...metadata } = object.metadata;
  return Buffer.from(JSON.stringify({ ...object, metadata }), 'utf8');
}

export function decode(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const object = JSON.parse(Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8')) as KubeObject;
  object.metadata.resourceVersion = String(revision);
  return object;
}

function withResourceVersion(object: KubeObject, revision: number): KubeObject {
  object.metadata.resourceVersion = String(revision);
  return object;
}
