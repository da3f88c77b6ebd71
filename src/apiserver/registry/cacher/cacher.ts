/**
 * The watch cache of one resource: a decorator of the object store that keeps
 * every object of the resource in memory, fed by one storage watch, so that the
 * lists and watches every controller and kubelet keep making are served from
 * memory while writes and gets go straight to storage. 1,000 watchers of pods
 * cost one storage watch.
 *
 * How it stays correct:
 * - A {@link Reflector} (client/cache) lists the prefix at revision R and
 *   watches it from R ({@link newStorageListerWatcher}); it watches again from
 *   its last revision when the storage watch drops, and lists again when that
 *   revision is compacted. A new list ends every watcher (they watch again).
 * - Storage's progress notifications are the reflector's bookmarks: the cache
 *   knows it has seen everything up to R even when nothing under its prefix
 *   changed.
 * - A consistent list (no resourceVersion) asks storage for its current
 *   revision C, and is served from memory once the cache has reached C (it asks
 *   for progress and waits, up to `freshnessTimeoutMs`); otherwise storage
 *   answers. A client never sees older data than storage would give it
 *   (upstream's consistent list from cache). On etcd, progress comes from its
 *   progress notifications: run etcd with a short
 *   --experimental-watch-progress-notify-interval (tests use 100 ms), or such
 *   reads go to etcd, as they did before the cache.
 * - resourceVersion=0 and NotOlderThan lists are served from memory at once
 *   (after waiting, like a consistent one, if the cache is behind the revision
 *   asked for). An exact revision, and the later pages of a paged list, are read
 *   from storage at that revision.
 * - The history (about 75 s of changes, bounded by a count) serves a watch from
 *   any revision it covers: replay and registration happen in one synchronous
 *   step, so there is no gap and no duplicate. A watch from before it goes to
 *   storage (which answers Compacted, and the client a 410, once that history
 *   is gone).
 * - A watcher that falls `watcherCapacity` events behind is ended (it watches
 *   again from its last revision): no client can make the server hold
 *   unbounded memory. Watchers that asked for bookmarks get one every
 *   `bookmarkIntervalMs`.
 */
import { Reflector } from '../../../client/cache/reflector.js';
import type { KubeObject } from '../../../machinery/meta.js';
import {
  encodeForCreate,
  type CreateOptions,
  type ObjectEvent,
  type ObjectListOptions,
  type ObjectListResult,
  type ObjectStorage,
  type ObjectWatch,
  type ObjectWatchOptions,
  type Predicate,
  type TryUpdate,
  type UpdateOptions,
} from '../generic/object-storage.js';
import type { ObjectStore } from '../generic/object-store.js';
import { EventQueue } from './event-queue.js';
import { RecentWrites } from './recent-writes.js';
import { newStorageListerWatcher, type KeyedObject } from './storage-lister-watcher.js';
import { WatchCache, type CachedChange } from './watch-cache.js';

export interface CacherOptions {
  /** How long changes are kept for watches to resume from (default 75 s, as upstream). */
  readonly historyMs?: number;
  /** At most this many changes are kept, whatever their age (default 100 × 1024, upstream's bound). */
  readonly maxEvents?: number;
  /** How many events one watcher may lag behind before it is ended (default 1024). */
  readonly watcherCapacity?: number;
  /** How often a watcher that asked for bookmarks gets one (default 60 s, as upstream). */
  readonly bookmarkIntervalMs?: number;
  /** How long a read waits for the cache to catch up with storage before storage answers it (default 3 s, as upstream). */
  readonly freshnessTimeoutMs?: number;
  /** Until storage has answered a progress request in time, a read waits only this long for one (default 250 ms). */
  readonly progressProbeMs?: number;
  readonly onError?: (message: string, error: unknown) => void;
  /** The clock of the history (tests pass their own). */
  readonly now?: () => number;
}

interface CacheWatcher {
  readonly start: string;
  readonly predicate: Predicate | undefined;
  readonly fromRevision: number;
  readonly bookmarks: boolean;
  readonly queue: EventQueue<ObjectEvent>;
  /** The revision of the last event or bookmark queued. */
  sent: number;
}

export class Cacher implements ObjectStore {
  private readonly cache: WatchCache;
  private readonly reflector: Reflector<KeyedObject>;
  private readonly watchers = new Set<CacheWatcher>();
  /** Objects this process has just created, for the storage watch to take instead of decoding them. */
  private readonly recentWrites = new RecentWrites();
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  /** Whether storage answered progress requests in time (undefined: not asked yet). */
  private progressWorks: boolean | undefined;
  /** After a freshness wait times out, reads behind the cache go straight to storage until then. */
  private slowProgressUntil = 0;
  private readonly watcherCapacity: number;
  private readonly freshnessTimeoutMs: number;

  constructor(
    private readonly backing: ObjectStorage,
    private readonly prefix: string,
    private readonly options: CacherOptions = {},
  ) {
    this.watcherCapacity = options.watcherCapacity ?? 1024;
    this.freshnessTimeoutMs = options.freshnessTimeoutMs ?? 3000;
    this.cache = new WatchCache(
      {
        historyMs: options.historyMs ?? 75_000,
        maxEvents: Math.max(1, options.maxEvents ?? 100 * 1024),
        now: options.now ?? Date.now,
      },
      {
        onChange: (change) => {
          for (const watcher of this.watchers) deliver(watcher, change);
        },
        onReplace: () => this.endWatchers(),
      },
    );
    this.reflector = new Reflector(newStorageListerWatcher(backing.storage, prefix, this.recentWrites), this.cache, {
      name: prefix,
      ...(options.onError !== undefined ? { onError: options.onError } : {}),
    });
  }

  /** How many created objects wait for their storage event (tests). */
  get recentWriteCount(): number {
    return this.recentWrites.size;
  }

  /** How many watchers the cache feeds (for tests and the benchmark). */
  get watcherCount(): number {
    return this.watchers.size;
  }

  // ---- writes and point reads go to storage

  async create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject> {
    const meta = object.metadata;
    // Shared only when the decoded bytes would give the same object: encode drops resourceVersion and selfLink.
    if (options?.unchangedAfterWrite !== true || !this.started || 'resourceVersion' in meta || 'selfLink' in meta) return this.backing.create(key, object, options);
    const encoded = encodeForCreate(object);
    this.recentWrites.remember(key, encoded.bytes, object);
    try {
      return await this.backing.createEncoded(key, object, encoded);
    } catch (e: unknown) {
      this.recentWrites.forget(key, object);
      throw e;
    }
  }

  get(key: string): Promise<KubeObject | undefined> {
    return this.backing.get(key);
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<{ object: KubeObject; created: boolean }> {
    return this.backing.guaranteedUpdate(key, tryUpdate, options);
  }

  delete(key: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    return this.backing.delete(key, check);
  }

  currentRevision(): Promise<number> {
    return this.backing.currentRevision();
  }

  // ---- lists and watches come from memory

  async list(prefix: string, options: ObjectListOptions = {}): Promise<ObjectListResult> {
    if (options.revision !== undefined || options.continueKey !== undefined || !prefix.startsWith(this.prefix)) {
      // An exact revision, or a later page: storage keeps that snapshot.
      return this.backing.list(prefix, options);
    }
    const needed = options.notOlderThan ?? (await this.backing.currentRevision());
    if (!(await this.ready(needed))) return this.backing.list(prefix, options);
    return this.cache.list(prefix, {
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.predicate !== undefined ? { predicate: options.predicate } : {}),
    });
  }

  watch(prefix: string, fromRevision: number, predicate?: Predicate, options: ObjectWatchOptions = {}): ObjectWatch {
    let inner: ObjectWatch | undefined;
    let cancelled = false;
    const self = this;
    return {
      cancel: () => {
        cancelled = true;
        inner?.cancel();
      },
      async *[Symbol.asyncIterator]() {
        const ready = prefix.startsWith(self.prefix) && (await self.ready(fromRevision));
        if (cancelled) return;
        inner = ready ? self.openWatch(prefix, fromRevision, predicate, options.bookmarks === true) : self.backing.watch(prefix, fromRevision, predicate, options);
        yield* inner;
      },
    };
  }

  /**
   * The cached object under a key, without going to storage (undefined when
   * the cache does not hold it: the caller decides whether to ask storage).
   * For admission checks, which upstream also answers from an informer.
   */
  async cached(key: string): Promise<KubeObject | undefined> {
    // Not listed yet (storage down?): undefined after the timeout, and the caller asks storage.
    if (!(await this.ready(0))) return undefined;
    return this.cache.get(key);
  }

  /** Stop the storage watch and end every watcher. */
  stop(): void {
    this.reflector.stop();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.endWatchers();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.reflector.start();
    // One timer per cache: bookmarks to the watchers that asked, and the history's expiry.
    this.timer = setInterval(() => this.tick(), this.options.bookmarkIntervalMs ?? 60_000);
    this.timer.unref();
  }

  /**
   * Whether the cache can answer for revision `needed`: it has listed, and has
   * seen `needed` (asking storage for progress and waiting when it has not).
   */
  private async ready(needed: number): Promise<boolean> {
    this.start();
    if (!this.reflector.hasSynced) {
      const synced = await Promise.race([this.reflector.synced.then(() => true), delay(this.freshnessTimeoutMs, false)]);
      if (!synced) return false;
    }
    if (this.cache.revision >= needed) return true;
    if (this.progressWorks === false && Date.now() < this.slowProgressUntil) return false;
    this.reflector.requestProgress();
    // Until progress has been seen to work, wait only briefly: an etcd with its
    // default progress-notify interval (10 minutes) would otherwise cost every
    // such read the whole timeout.
    const wait = this.progressWorks === true ? this.freshnessTimeoutMs : Math.min(this.freshnessTimeoutMs, this.options.progressProbeMs ?? 250);
    if (await this.cache.waitUntilFresh(needed, wait)) {
      this.progressWorks = true;
      return true;
    }
    // Progress is slow: for a while, reads the cache is behind on go to storage at once.
    this.progressWorks = false;
    this.slowProgressUntil = Date.now() + 60_000;
    return false;
  }

  private openWatch(prefix: string, fromRevision: number, predicate: Predicate | undefined, bookmarks: boolean): ObjectWatch {
    if (fromRevision < this.cache.history.oldestRevision) {
      // Older than the history: only storage can say whether it still has those changes.
      return this.backing.watch(prefix, fromRevision, predicate);
    }
    // Replay and register in one synchronous step: no change can slip between them.
    // The replay may exceed the lag a watcher is allowed (it is held by the history anyway).
    const replay = [...this.cache.history.after(fromRevision)];
    const watcher: CacheWatcher = {
      start: prefix,
      predicate,
      fromRevision,
      bookmarks,
      queue: new EventQueue<ObjectEvent>(this.watcherCapacity + replay.length, () => this.watchers.delete(watcher)),
      sent: fromRevision,
    };
    for (const change of replay) deliver(watcher, change);
    this.watchers.add(watcher);
    return {
      cancel: () => watcher.queue.end(),
      [Symbol.asyncIterator]: () => ({
        next: () => watcher.queue.next(),
        return: () => {
          watcher.queue.end();
          return Promise.resolve({ value: undefined, done: true });
        },
      }),
    };
  }

  private tick(): void {
    this.cache.history.expire();
    const revision = this.cache.revision;
    for (const watcher of this.watchers) {
      // Also when nothing changed: the bookmark then tells the client the watch is alive.
      if (!watcher.bookmarks || revision < watcher.sent) continue;
      watcher.sent = revision;
      watcher.queue.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(revision) } } as KubeObject, revision });
    }
  }

  private endWatchers(): void {
    const all = [...this.watchers];
    this.watchers.clear();
    for (const w of all) w.queue.end();
  }
}

/** The change as this watcher sees it: its key range and predicate decide ADDED, MODIFIED or DELETED. */
function deliver(watcher: CacheWatcher, change: CachedChange): void {
  if (change.revision <= watcher.fromRevision || !change.key.startsWith(watcher.start)) return;
  const p = watcher.predicate;
  const now = change.object !== undefined && (p === undefined || p(change.object));
  const before = change.prevObject !== undefined && (p === undefined || p(change.prevObject));
  let event: ObjectEvent | undefined;
  if (change.object === undefined) {
    if (before) event = { type: 'DELETED', object: change.prevObject!, revision: change.revision };
  } else if (now) {
    event = { type: before ? 'MODIFIED' : 'ADDED', object: change.object, revision: change.revision };
  } else if (before) {
    // It left the selector: for this watcher it is gone.
    const gone = { ...change.prevObject!, metadata: { ...change.prevObject!.metadata, resourceVersion: String(change.revision) } };
    event = { type: 'DELETED', object: gone, revision: change.revision };
  }
  if (event === undefined) return;
  watcher.sent = change.revision;
  watcher.queue.push(event);
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}
