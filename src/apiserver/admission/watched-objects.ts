/**
 * The objects of one resource kept in memory by a watch of the server's own
 * store, by namespace, for admission plugins that consult them on every
 * request (LimitRanges, ResourceQuotas, PriorityClasses, Namespaces): a
 * request then reads a Map instead of listing through the store (a storage
 * revision query, a copy of each object). As upstream's informer-fed listers,
 * it is eventually consistent; until the first list is in, `synced` is false
 * and a plugin asks the store instead. The watch starts again (with a fresh
 * list) whenever it ends, until the signal stops it.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { GenericStore } from '../registry/generic/store.js';

export interface WatchedObjects<T extends KubeObject> {
  /** True once the first list is in (and while the index follows the watch). */
  readonly synced: boolean;
  /** Resolves once synced. */
  ready(): Promise<void>;
  /** The objects of a namespace ('' for cluster-scoped ones), in no particular order; the same array until one of them changes. */
  list(namespace: string): readonly T[];
  get(namespace: string, name: string): T | undefined;
  /** Every object, across namespaces. */
  all(): readonly T[];
  /** Moves on every change and every fresh list, so that data derived from the objects is rebuilt only when they changed. */
  readonly version: number;
}

export interface WatchedObjectsOptions {
  readonly store: GenericStore;
  readonly signal: AbortSignal;
  /** Pause before watching again after a failure (default 1 s). */
  readonly retryDelayMs?: number;
  /** Called after each change the watch brings, with the object's namespace ('' when cluster-scoped). */
  readonly onChange?: (namespace: string) => void;
}

const NONE: readonly never[] = Object.freeze([]);

export function watchObjects<T extends KubeObject>(options: WatchedObjectsOptions): WatchedObjects<T> {
  let byNamespace = new Map<string, Map<string, T>>();
  /** Arrays handed out, per namespace, until a change there. */
  const lists = new Map<string, readonly T[]>();
  let everything: readonly T[] | undefined;
  let synced = false;
  let version = 0;
  let resolveReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (resolveReady = resolve));

  const apply = (target: Map<string, Map<string, T>>, type: string, object: T): void => {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name ?? '';
    let objects = target.get(namespace);
    if (type === 'DELETED') {
      objects?.delete(name);
      if (objects?.size === 0) target.delete(namespace);
    } else {
      if (objects === undefined) target.set(namespace, (objects = new Map()));
      objects.set(name, object);
    }
    if (target === byNamespace) {
      version += 1;
      lists.delete(namespace);
      everything = undefined;
      options.onChange?.(namespace);
    }
  };

  const swap = (fresh: Map<string, Map<string, T>>): void => {
    byNamespace = fresh;
    version += 1;
    lists.clear();
    everything = undefined;
    synced = true;
    resolveReady();
  };

  const run = async (): Promise<void> => {
    while (!options.signal.aborted) {
      try {
        const watch = await options.store.watch(undefined, { resourceVersion: '' });
        const stop = (): void => watch.cancel();
        options.signal.addEventListener('abort', stop, { once: true });
        try {
          const fresh = new Map<string, Map<string, T>>();
          let initial = watch.initialEvents;
          if (initial === 0) swap(fresh);
          for await (const event of watch) {
            if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
            apply(initial > 0 ? fresh : byNamespace, event.type, event.object as T);
            if (initial > 0 && --initial === 0) swap(fresh);
          }
        } finally {
          options.signal.removeEventListener('abort', stop);
          watch.cancel();
        }
      } catch {
        // The watch failed (compaction, storage trouble): list and watch again after a pause.
      }
      if (options.signal.aborted) break;
      await new Promise<void>((resolve) => {
        // The listener goes with the pause: a watch that keeps failing must not pile listeners on the signal.
        const done = (): void => {
          clearTimeout(timer);
          options.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, options.retryDelayMs ?? 1000);
        timer.unref();
        options.signal.addEventListener('abort', done, { once: true });
      });
    }
  };
  void run();

  return {
    get synced() {
      return synced;
    },
    get version() {
      return version;
    },
    ready: () => readyPromise,
    list(namespace) {
      let list = lists.get(namespace);
      if (list === undefined) {
        const objects = byNamespace.get(namespace);
        list = objects === undefined ? NONE : [...objects.values()];
        lists.set(namespace, list);
      }
      return list;
    },
    get: (namespace, name) => byNamespace.get(namespace)?.get(name),
    all() {
      everything ??= [...byNamespace.values()].flatMap((objects) => [...objects.values()]);
      return everything;
    },
  };
}

/**
 * Upstream's live lookup for a namespace the index shows empty (LimitRanger,
 * ResourceQuota): an object created a moment ago may not have reached the
 * watch yet, so ask the store, and keep its answer for `ttlMs` (upstream: 30 s).
 */
export interface LiveLookup<T> {
  lookup(namespace: string, read: () => Promise<readonly T[]>): Promise<readonly T[]>;
  /** The answer kept for a namespace while it is fresh, without asking the store; undefined when there is none. */
  peek(namespace: string): readonly T[] | undefined;
  /** Drop a namespace's answer: the index has caught up with it (a change there reached the watch). */
  forget(namespace: string): void;
}

export function newLiveLookup<T>(options: { ttlMs?: number; now?: () => number; maxEntries?: number } = {}): LiveLookup<T> {
  const ttl = options.ttlMs ?? 30_000;
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 10_000;
  const entries = new Map<string, { expires: number; items: readonly T[] }>();
  return {
    peek(namespace) {
      const entry = entries.get(namespace);
      return entry !== undefined && entry.expires > now() ? entry.items : undefined;
    },
    async lookup(namespace, read) {
      const entry = entries.get(namespace);
      if (entry !== undefined && entry.expires > now()) return entry.items;
      const items = await read();
      if (entries.size >= max) entries.clear();
      entries.set(namespace, { expires: now() + ttl, items });
      return items;
    },
    forget: (namespace) => void entries.delete(namespace),
  };
}
