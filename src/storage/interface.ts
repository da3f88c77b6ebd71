/**
 * The storage interface: bytes under keys, with revisions, in etcd's MVCC model.
 *
 * Only the API server talks to storage. Every write gets a new, strictly
 * increasing revision for the whole store, and the API exposes that revision as
 * `metadata.resourceVersion`. The interface is deliberately small: it has exactly
 * what the API server needs, and a backend rejects anything else loudly with a
 * {@link StorageError}.
 *
 * Keys are UTF-8 strings such as `/registry/pods/default/nginx`. Prefix
 * operations (list, watch) cover every key that starts with the prefix, compared
 * byte-wise, as etcd compares them.
 */

/** One key at one revision. */
export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision of the write that created this key (since its last deletion). */
  readonly createRevision: number;
  /** Revision of the last write to this key. */
  readonly modRevision: number;
}

export interface ListOptions {
  /** Read at this revision (it must not be compacted, nor in the future); default: the current one. */
  readonly revision?: number;
  /** At most this many items; `more` says whether others remain. 0 or absent: no limit. */
  readonly limit?: number;
  /** Return only keys strictly after this key (the last key of the previous page). */
  readonly continueFrom?: string;
}

export interface ListResult {
  /** Items in byte order of their keys. */
  readonly items: KeyValue[];
  /** The revision the list was read at; pass it back to read the next page from the same snapshot. */
  readonly revision: number;
  /** True when keys after the last item remain under the prefix. */
  readonly more: boolean;
  /**
   * When `more`: how many keys the range holds from its start (after
   * continueFrom), the items returned included, whatever the limit (etcd's
   * RangeResponse.count). The API server derives remainingItemCount from it.
   */
  readonly count?: number;
}

/** A change, as a watcher sees it. */
export type StorageEvent =
  | {
      readonly type: 'PUT';
      /** The new value; `kv.modRevision` is the event's revision. */
      readonly kv: KeyValue;
      /** The value before the write; absent when the write created the key. */
      readonly prevKv?: KeyValue;
    }
  | {
      readonly type: 'DELETE';
      readonly key: string;
      /** The revision of the deletion. */
      readonly revision: number;
      /** The value that was deleted. */
      readonly prevKv: KeyValue;
    };

/** Revision of an event: for a PUT the new modRevision, for a DELETE the deletion's revision. */
export function eventRevision(event: StorageEvent): number {
  return event.type === 'PUT' ? event.kv.modRevision : event.revision;
}

/**
 * A progress notification (etcd's progress_notify): every change under the
 * watched prefix with a revision up to `revision` has been yielded before it.
 * A watch yields one only after {@link StorageWatch.requestProgress}.
 */
export interface StorageProgress {
  readonly type: 'PROGRESS';
  readonly revision: number;
}

/**
 * A running watch: an ordered stream of events, with no gap and no duplicate.
 * Iterating ends when the watch is cancelled or the store closes; it throws a
 * StorageError (Compacted, Unavailable, …) when the watch cannot go on.
 */
export interface StorageWatch extends AsyncIterable<StorageEvent | StorageProgress> {
  /** Stop the watch; iteration ends after the events already delivered. Idempotent. */
  cancel(): void;
  /**
   * Ask for a {@link StorageProgress}: the watch will yield one whose revision
   * is at least the store's current revision at the time of the call (etcd:
   * a WatchProgressRequest on the watch stream; sqlite and memory: in-process).
   * It tells a watcher of a quiet prefix that it has seen everything, so that a
   * cache can prove it is as fresh as storage without reading it. Idempotent
   * until the notification arrives; ignored once the watch has ended.
   */
  requestProgress(): void;
}

export interface Storage {
  /** The key's current value, or undefined when the key does not exist. */
  get(key: string): Promise<KeyValue | undefined>;

  /** Every key under the prefix at one consistent revision, paged with limit/continueFrom. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /** Create the key; a KeyExists StorageError if it exists. */
  create(key: string, value: Uint8Array): Promise<KeyValue>;

  /**
   * Compare-and-swap: replace the value only if the key's modRevision is still
   * `expectedModRevision`. A stale revision gives Conflict (carrying the current
   * value); a missing key gives KeyNotFound.
   */
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue>;

  /**
   * Delete the key, if given, only when its modRevision is still `expectedModRevision`.
   * Returns the deleted value and the revision of the deletion.
   */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;

  /**
   * Watch every key under the prefix, starting with the history after `fromRevision`
   * (events whose revision is greater than it). A compacted `fromRevision` makes
   * the iteration throw Compacted, with the compact revision.
   */
  watch(prefix: string, fromRevision: number): StorageWatch;

  /** The revision of the last write (0 for an empty store). */
  currentRevision(): Promise<number>;

  /** Forget history before `revision`: reads and watches at older revisions give Compacted. */
  compact(revision: number): Promise<void>;

  /** Release everything; later calls fail with Closed and running watches end. */
  close(): Promise<void>;
}

export interface DeleteResult {
  readonly prevKv: KeyValue;
  readonly revision: number;
}

/** etcd's default --max-request-bytes: the largest value a store accepts. */
export const MAX_VALUE_BYTES = 1.5 * 1024 * 1024;

/**
 * The first key after every key that starts with `prefix` (etcd's range_end for
 * a prefix): the prefix with its last code point incremented. UTF-8 byte order is
 * code point order, so this is also the byte-wise bound.
 */
export function prefixEnd(prefix: string): string {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    let next = last + 1;
    if (next === 0xd800) next = 0xe000; // skip the surrogate range, which UTF-8 cannot encode
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next);
  }
  return '';
}
