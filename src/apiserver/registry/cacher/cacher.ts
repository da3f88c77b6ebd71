/**
 * The watch cache of one resource: a decorator of the object store that keeps
 * every object of the resource in memory, fed by one storage watch, so that
 * lists and watches — the requests every controller and kubelet keep making —
 * are served from memory while writes go straight to storage.
 *
 * How it stays correct:
 * - It starts with a list at revision R and a storage watch from R, so it sees
 *   every change after its snapshot, in order, exactly once.
 * - A consistent list (no resourceVersion) first asks storage for its current
 *   revision; when the cache has seen it, the list is answered from memory,
 *   otherwise from storage: a client never sees older data than a read from
 *   storage would give.
 * - It keeps the last `capacity` events. A watch from a revision inside that
 *   window is replayed from it and then fed live, registered in the same
 *   synchronous step as the replay, so there is no gap and no duplicate. A
 *   watch from an older revision goes to storage (which answers Compacted, and
 *   the client a 410, once that history is gone).
 * - If the storage watch fails, the cache ends its watchers (clients watch
 *   again from their last revision), lists again and resumes.
 */
import type { KubeObject } from '../../../machinery/meta.js';
import type { Storage, StorageEvent } from '../../../storage/interface.js';
import { decode, type ObjectEvent, type ObjectListOptions, type ObjectListResult, type ObjectStorage, type ObjectWatch, type Predicate, type TryUpdate, type UpdateOptions } from '../generic/object-storage.js';
import type { ObjectStore } from '../generic/object-store.js';
import { EventQueue } from './event-queue.js';

/** A change as the cache records it: both states, so each watcher can apply its own predicate. */
interface CachedEvent {
  readonly key: string;
  readonly revision: number;
  /** The new state; undefined for a deletion. */
  readonly object: KubeObject | undefined;
  /** The state before; undefined for a creation. For a deletion, with resourceVersion = the deletion's revision. */
  readonly prevObject: KubeObject | undefined;
}

interface CacheWatcher {
  readonly start: string;
  readonly predicate: Predicate | undefined;
  readonly fromRevision: number;
  readonly queue: EventQueue<ObjectEvent>;
}

export interface CacherOptions {
  /** How many recent events a watch can be resumed from (upstream sizes its buffer dynamically; 10,000 here). */
  readonly capacity?: number;
  /** How many events one watcher may lag behind before it is ended. */
  readonly watcherCapacity?: number;
  readonly onError?: (message: string, error: unknown) => void;
}

export class Cacher implements ObjectStore {
  private readonly objects = new Map<string, KubeObject>();
  private sortedKeys: string[] | undefined;
  private revision = 0;
  private events: CachedEvent[] = [];
  private readonly watchers = new Set<CacheWatcher>();
  private started: Promise<void> | undefined;
  private stopped = false;
  private storageWatch: { cancel(): void } | undefined;
  private readonly capacity: number;
  private readonly watcherCapacity: number;

  constructor(
    private readonly backing: ObjectStorage,
    private readonly prefix: string,
    private readonly options: CacherOptions = {},
  ) {
    this.capacity = options.capacity ?? 10_000;
    this.watcherCapacity = options.watcherCapacity ?? 100_000;
  }

  private get storage(): Storage {
    return this.backing.storage;
  }

  // ---- writes and point reads go to storage

  create(key: string, object: KubeObject): Promise<KubeObject> {
    return this.backing.create(key, object);
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
    const paged = (options.limit !== undefined && options.limit > 0) || options.continueKey !== undefined;
    if (options.revision !== undefined || paged || !prefix.startsWith(this.prefix)) {
      // An exact revision or a page of a paged list: storage keeps the snapshot.
      return this.backing.list(prefix, options);
    }
    await this.ensureStarted();
    const current = await this.storage.currentRevision();
    if (this.revision < current) {
      // The cache has not seen revision `current` yet: either an event under
      // its prefix is still on its way, or the newer writes were to other
      // resources and nothing tells the cache so (storage sends no progress
      // notifications yet). Either way storage has the consistent answer.
      return this.backing.list(prefix, options);
    }
    const items: KubeObject[] = [];
    const predicate = options.predicate;
    for (const key of this.keysFrom(prefix)) {
      const object = this.objects.get(key)!;
      if (predicate === undefined || predicate(object)) items.push(object);
    }
    return { items, revision: this.revision };
  }

  watch(prefix: string, fromRevision: number, predicate?: Predicate): ObjectWatch {
    let inner: ObjectWatch | undefined;
    let cancelled = false;
    const self = this;
    return {
      cancel: () => {
        cancelled = true;
        inner?.cancel();
      },
      async *[Symbol.asyncIterator]() {
        await self.ensureStarted();
        if (cancelled) return;
        inner = self.openWatch(prefix, fromRevision, predicate);
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
    await this.ensureStarted();
    return this.objects.get(key);
  }

  /** Stop the storage watch and end every watcher. */
  stop(): void {
    this.stopped = true;
    this.storageWatch?.cancel();
    for (const w of this.watchers) w.queue.end();
    this.watchers.clear();
  }

  private openWatch(prefix: string, fromRevision: number, predicate: Predicate | undefined): ObjectWatch {
    const oldest = this.events[0]?.revision ?? this.revision + 1;
    // Events after fromRevision must all be in the window (or still to come).
    if (fromRevision < oldest - 1 && fromRevision < this.revision) {
      return this.backing.watch(prefix, fromRevision, predicate);
    }
    const watcher: CacheWatcher = {
      start: prefix,
      predicate,
      fromRevision,
      queue: new EventQueue<ObjectEvent>(this.watcherCapacity, () => this.watchers.delete(watcher)),
    };
    // Replay and register in one synchronous step: no event can slip between them.
    for (const event of this.events) {
      if (event.revision > fromRevision) deliver(watcher, event);
    }
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

  private keysFrom(prefix: string): string[] {
    if (this.sortedKeys === undefined) {
      // Keys are compared as UTF-8 bytes, as storage orders them.
      this.sortedKeys = [...this.objects.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    }
    const keys = this.sortedKeys;
    if (prefix === this.prefix) return keys;
    return keys.filter((k) => k.startsWith(prefix));
  }

  private ensureStarted(): Promise<void> {
    this.started ??= this.run();
    return this.started;
  }

  /** List, then follow the storage watch; resolves once the first list is in. */
  private run(): Promise<void> {
    return new Promise<void>((resolveStarted, rejectStarted) => {
      let first = true;
      const loop = async (): Promise<void> => {
        while (!this.stopped) {
          try {
            const revision = await this.relist();
            if (first) {
              first = false;
              resolveStarted();
            }
            await this.follow(revision);
          } catch (e: unknown) {
            if (first) {
              // The first list failed: let callers see the error, and try again on the next call.
              this.started = undefined;
              rejectStarted(e);
              return;
            }
            this.options.onError?.(`watch cache of ${this.prefix} restarts`, e);
          }
          for (const w of this.watchers) w.queue.end();
          this.watchers.clear();
          if (!this.stopped) await new Promise((r) => setTimeout(r, 100));
        }
      };
      void loop();
    });
  }

  private async relist(): Promise<number> {
    const fresh = new Map<string, KubeObject>();
    let page = await this.storage.list(this.prefix, { limit: 5000 });
    const revision = page.revision;
    for (;;) {
      for (const kv of page.items) fresh.set(kv.key, decode(kv));
      const last = page.items.at(-1);
      if (!page.more || last === undefined) break;
      page = await this.storage.list(this.prefix, { limit: 5000, revision, continueFrom: last.key });
    }
    this.objects.clear();
    for (const [k, v] of fresh) this.objects.set(k, v);
    this.sortedKeys = undefined;
    this.events = [];
    this.revision = revision;
    return revision;
  }

  private async follow(fromRevision: number): Promise<void> {
    const watch = this.storage.watch(this.prefix, fromRevision);
    this.storageWatch = watch;
    for await (const event of watch) if (event.type !== "PROGRESS") this.apply(event);
  }

  private apply(event: StorageEvent): void {
    let cached: CachedEvent;
    if (event.type === 'PUT') {
      const object = decode(event.kv);
      const prev = this.objects.get(event.kv.key);
      if (prev === undefined) this.sortedKeys = undefined;
      this.objects.set(event.kv.key, object);
      cached = { key: event.kv.key, revision: event.kv.modRevision, object, prevObject: prev };
    } else {
      const prev = decode(event.prevKv, event.revision);
      this.objects.delete(event.key);
      this.sortedKeys = undefined;
      cached = { key: event.key, revision: event.revision, object: undefined, prevObject: prev };
    }
    this.events.push(cached);
    if (this.events.length > this.capacity * 1.25) this.events = this.events.slice(this.events.length - this.capacity);
    this.revision = cached.revision;
    for (const watcher of this.watchers) deliver(watcher, cached);
  }

}

/** The event as this watcher sees it: its key range and predicate decide ADDED, MODIFIED or DELETED. */
function deliver(watcher: CacheWatcher, event: CachedEvent): void {
  if (event.revision <= watcher.fromRevision || !event.key.startsWith(watcher.start)) return;
  const p = watcher.predicate;
  const now = event.object !== undefined && (p === undefined || p(event.object));
  const before = event.prevObject !== undefined && (p === undefined || p(event.prevObject));
  if (event.object === undefined) {
    if (before) watcher.queue.push({ type: 'DELETED', object: event.prevObject!, revision: event.revision });
    return;
  }
  if (now) {
    watcher.queue.push({ type: before ? 'MODIFIED' : 'ADDED', object: event.object, revision: event.revision });
  } else if (before) {
    // It left the selector: for this watcher it is gone.
    const gone = { ...event.prevObject!, metadata: { ...event.prevObject!.metadata, resourceVersion: String(event.revision) } };
    watcher.queue.push({ type: 'DELETED', object: gone, revision: event.revision });
  }
}
