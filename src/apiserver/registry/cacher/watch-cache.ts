/**
 * The state of one watch cache: every object of the resource by key, its keys
 * in storage order (a list of a namespace is one binary-searched range), the
 * recent changes ({@link EventRing}), and the revision it is current at. It is
 * the reflector's store: the reflector replaces it with a list, then applies
 * the watch's changes and bookmarks, one at a time.
 *
 * `revision` only grows between lists: a change or a bookmark at R means every
 * change up to R is in. Readers that need "at least R" wait with
 * {@link waitUntilFresh}.
 */
import type { ReflectorChange, ReflectorStore } from '../../../client/cache/reflector.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { ObjectListResult, Predicate } from '../generic/object-storage.js';
import { EventRing, type EventRingOptions } from './event-ring.js';
import { SortedKeys } from './sorted-keys.js';
import type { KeyedObject } from './storage-lister-watcher.js';

/** A change as the cache records it: both states, so that each watcher can apply its own predicate. */
export interface CachedChange {
  readonly key: string;
  readonly revision: number;
  /** The new state; undefined for a deletion. */
  readonly object: KubeObject | undefined;
  /** The state before; undefined for a creation. For a deletion, with resourceVersion = the deletion's revision. */
  readonly prevObject: KubeObject | undefined;
}

export interface WatchCacheListener {
  /** A change was applied (the history holds it already). */
  onChange(change: CachedChange): void;
  /** A new list replaced the state: watchers fed from the old one must start again. */
  onReplace(revision: number): void;
}

export interface CacheListOptions {
  readonly limit?: number;
  readonly continueKey?: string;
  readonly predicate?: Predicate;
}

export class WatchCache implements ReflectorStore<KeyedObject> {
  private readonly objects = new Map<string, KubeObject>();
  private readonly keys = new SortedKeys();
  readonly history: EventRing<CachedChange>;
  private current = 0;
  private waiters: { revision: number; resolve: (fresh: boolean) => void }[] = [];

  constructor(
    options: EventRingOptions,
    private readonly listener: WatchCacheListener,
  ) {
    this.history = new EventRing(options);
  }

  /** Every change up to this revision is in the cache. */
  get revision(): number {
    return this.current;
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  replace(items: readonly KeyedObject[], resourceVersion: string): void {
    const revision = Number(resourceVersion);
    this.objects.clear();
    for (const item of items) this.objects.set(item.key, item.object);
    this.keys.reset(this.objects.keys());
    this.history.reset(revision);
    this.current = revision;
    this.listener.onReplace(revision);
    this.releaseWaiters();
  }

  apply(change: ReflectorChange<KeyedObject>): void {
    const { key, object } = change.object;
    const revision = Number(change.resourceVersion);
    const prev = this.objects.get(key);
    let cached: CachedChange;
    if (change.type === 'DELETED') {
      this.objects.delete(key);
      this.keys.delete(key);
      cached = { key, revision, object: undefined, prevObject: object };
    } else {
      if (prev === undefined) this.keys.add(key);
      this.objects.set(key, object);
      cached = { key, revision, object, prevObject: prev };
    }
    this.history.push(cached);
    this.current = revision;
    this.listener.onChange(cached);
    this.releaseWaiters();
  }

  progress(resourceVersion: string): void {
    const revision = Number(resourceVersion);
    if (revision <= this.current) return;
    this.current = revision;
    this.releaseWaiters();
  }

  /** Resolves true once the cache is at `revision` or later, false after `timeoutMs`. */
  waitUntilFresh(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.current >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        revision,
        resolve: (fresh: boolean): void => {
          clearTimeout(timer);
          resolve(fresh);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /**
   * The objects under `prefix` in key order, at the cache's revision: filtered,
   * then cut at `limit` with the last key returned as continueKey when keys
   * remain (the next page is read from storage at that same revision).
   */
  list(prefix: string, options: CacheListOptions = {}): ObjectListResult {
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;
    const predicate = options.predicate;
    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    const keys = this.keys.range(prefix, options.continueKey);
    for (const key of keys) {
      if (items.length === limit) {
        if (predicate !== undefined) return { items, revision: this.current, continueKey: lastKey! };
        // Unfiltered, the keys left in the range are what remains (upstream's remainingItemCount).
        let remaining = 1;
        for (const _ of keys) remaining++;
        return { items, revision: this.current, continueKey: lastKey!, remainingItemCount: remaining };
      }
      const object = this.objects.get(key)!;
      if (predicate !== undefined && !predicate(object)) continue;
      items.push(object);
      lastKey = key;
    }
    return { items, revision: this.current };
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const waiting: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.current >= w.revision) w.resolve(true);
      else waiting.push(w);
    }
    this.waiters = waiting;
  }
}
