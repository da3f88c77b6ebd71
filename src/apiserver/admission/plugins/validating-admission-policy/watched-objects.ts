/**
 * The objects of one resource kept in memory by name, fed by the server's own
 * store: a watch from a fresh list, restarted (with a new list) whenever it
 * ends, until the signal stops it. `version` moves on every change, so that
 * derived data (compiled policies) is rebuilt only when something changed.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import type { GenericStore } from '../../../registry/generic/store.js';

export interface WatchedObjects<T extends KubeObject> {
  /** Resolves once the first list is in. */
  ready(): Promise<void>;
  /** The objects by name (replaced, never changed in place, when the watch delivers). */
  objects(): ReadonlyMap<string, T>;
  /** Moves on every change. */
  version(): number;
}

export interface WatchedObjectsOptions {
  readonly store: GenericStore;
  readonly signal: AbortSignal;
  /** Pause before watching again after a failure. */
  readonly retryDelayMs?: number;
}

export function watchObjects<T extends KubeObject>(options: WatchedObjectsOptions): WatchedObjects<T> {
  let current = new Map<string, T>();
  let version = 0;
  let resolveReady!: () => void;
  const readyPromise = new Promise<void>((resolve) => (resolveReady = resolve));

  const publish = (next: Map<string, T>): void => {
    current = next;
    version += 1;
  };

  const run = async (): Promise<void> => {
    while (!options.signal.aborted) {
      try {
        const watch = await options.store.watch(undefined, { resourceVersion: '' });
        const stop = (): void => watch.cancel();
        options.signal.addEventListener('abort', stop, { once: true });
        try {
          let initial = watch.initialEvents;
          const fresh = new Map<string, T>();
          if (initial === 0) {
            publish(fresh);
            resolveReady();
          }
          for await (const event of watch) {
            const object = event.object as T;
            const name = object.metadata.name ?? '';
            if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
            const target = initial > 0 ? fresh : new Map(current);
            if (event.type === 'DELETED') target.delete(name);
            else target.set(name, object);
            if (initial > 0) {
              initial -= 1;
              if (initial === 0) {
                publish(fresh);
                resolveReady();
              }
            } else publish(target);
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
        const timer = setTimeout(resolve, options.retryDelayMs ?? 1000);
        options.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  };

  void run();
  return { ready: () => readyPromise, objects: () => current, version: () => version };
}
