/**
 * A {@link SharedIndexInformer}: one {@link Reflector} feeding one indexer,
 * whose store turns each reflector call into handler notifications, honouring
 * the consistency contract of interfaces.ts:
 *
 * - `replace` (the first list, or a relist after 410): the indexer takes the
 *   new list at once, then handlers get the difference with the old content —
 *   onAdd for a new key (isInInitialList on the first list), onUpdate for a
 *   key whose resourceVersion changed (an unchanged object is not an event),
 *   onDelete with the last known state for a key the list lacks;
 * - `apply`: the indexer changes, then onAdd / onUpdate / onDelete (a DELETED
 *   of a key the cache never had is dropped, as upstream's DeltaFIFO does);
 * - `progress`: only lastSyncResourceVersion moves.
 *
 * Notifications go through one queue drained synchronously, so handlers run
 * one at a time and in order even when a handler is added (or adds another)
 * while a notification runs. A handler added after the first list gets onAdd
 * for each cached object first, on the next microtask (so that whatever the
 * caller sets up after addEventHandler is in place), before any later change.
 * A handler that throws is reported to onError; the others still run.
 * Each handler has its own resync timer (its resyncPeriodMs, else the
 * informer's): onUpdate(obj, obj) for every cached object once per period.
 */
import type { KubeObject } from '../../machinery/meta.js';
import { newIndexer, type StoreIndexer } from './indexer.js';
import { objectKey, type EventHandler, type HandlerRegistration, type Indexer, type SharedIndexInformer } from './interfaces.js';
import { Reflector, type ListerWatcher, type ReflectorChange, type ReflectorStore } from './reflector.js';

export interface SharedInformerOptions {
  /** For messages. */
  readonly name?: string;
  /** Default resync period of handlers that do not give their own (0 or absent: no resync). */
  readonly resyncPeriodMs?: number;
  /** Reflector failures and handler exceptions (default: ignored). */
  readonly onError?: (message: string, error: unknown) => void;
  /** Reflector backoff (default 100 ms, doubled up to 10 s). */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

interface Listener<T extends KubeObject> {
  readonly handler: EventHandler<T>;
  removed: boolean;
  timer: NodeJS.Timeout | undefined;
  readonly resyncPeriodMs: number;
}

export class SharedInformer<T extends KubeObject = KubeObject> implements SharedIndexInformer<T> {
  private readonly store: StoreIndexer<T> = newIndexer<T>();
  private readonly reflector: Reflector<T>;
  private readonly listeners: Listener<T>[] = [];
  private readonly pending: (() => void)[] = [];
  private draining = false;
  private synced_ = false;
  private stopped = false;
  private resourceVersion = '';
  private resolveSynced!: () => void;
  readonly synced: Promise<void>;

  constructor(
    listerWatcher: ListerWatcher<T>,
    private readonly options: SharedInformerOptions = {},
  ) {
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    const store: ReflectorStore<T> = {
      replace: (items, rv) => this.onReplace(items, rv),
      apply: (change) => this.onApply(change),
      progress: (rv) => {
        this.resourceVersion = rv;
      },
    };
    this.reflector = new Reflector(listerWatcher, store, {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.initialBackoffMs !== undefined ? { initialBackoffMs: options.initialBackoffMs } : {}),
      ...(options.maxBackoffMs !== undefined ? { maxBackoffMs: options.maxBackoffMs } : {}),
      onError: (message, error) => this.report(message, error),
    });
  }

  get indexer(): Indexer<T> {
    return this.store;
  }

  get hasSynced(): boolean {
    return this.synced_;
  }

  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Start listing and watching (idempotent; a no-op after stop). */
  start(): void {
    if (this.stopped) return;
    this.reflector.start();
  }

  /** Stop the reflector and every resync timer: no handler runs afterwards. */
  stop(): void {
    this.stopped = true;
    this.reflector.stop();
    this.pending.length = 0;
    for (const listener of this.listeners) clearListenerTimer(listener);
  }

  addEventHandler(handler: EventHandler<T>, options: { readonly resyncPeriodMs?: number } = {}): HandlerRegistration {
    const listener: Listener<T> = {
      handler,
      removed: false,
      timer: undefined,
      resyncPeriodMs: options.resyncPeriodMs ?? this.options.resyncPeriodMs ?? 0,
    };
    this.listeners.push(listener);
    if (this.synced_ && !this.stopped) {
      const snapshot = this.store.list();
      for (const object of snapshot) this.pending.push(() => this.call(listener, 'onAdd', () => listener.handler.onAdd?.(object, true)));
      queueMicrotask(() => this.drain());
      this.startResync(listener);
    }
    return {
      remove: () => {
        listener.removed = true;
        clearListenerTimer(listener);
        const at = this.listeners.indexOf(listener);
        if (at >= 0) this.listeners.splice(at, 1);
      },
    };
  }

  private onReplace(items: readonly T[], resourceVersion: string): void {
    const initial = !this.synced_;
    const previous = this.store.replaceAll(items);
    this.resourceVersion = resourceVersion;
    for (const object of items) {
      const old = previous.get(objectKey(object));
      if (old === undefined) this.notify('onAdd', (h) => h.onAdd?.(object, initial));
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) this.notify('onUpdate', (h) => h.onUpdate?.(old, object));
    }
    if (!initial) {
      for (const [key, old] of previous) if (this.store.get(key) === undefined) this.notify('onDelete', (h) => h.onDelete?.(old));
    }
    this.drain();
    if (initial) {
      this.synced_ = true;
      for (const listener of this.listeners) this.startResync(listener);
      this.resolveSynced();
    }
  }

  private onApply(change: ReflectorChange<T>): void {
    this.resourceVersion = change.resourceVersion;
    const object = change.object;
    if (change.type === 'DELETED') {
      const old = this.store.remove(objectKey(object));
      if (old !== undefined) this.notify('onDelete', (h) => h.onDelete?.(old));
    } else {
      const old = this.store.upsert(object);
      if (old === undefined) this.notify('onAdd', (h) => h.onAdd?.(object, false));
      else this.notify('onUpdate', (h) => h.onUpdate?.(old, object));
    }
    this.drain();
  }

  /** Queue one notification for every current handler. */
  private notify(what: string, deliver: (handler: EventHandler<T>) => void): void {
    for (const listener of this.listeners) this.pending.push(() => this.call(listener, what, () => deliver(listener.handler)));
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let next = this.pending.shift(); next !== undefined && !this.stopped; next = this.pending.shift()) next();
    } finally {
      this.draining = false;
    }
  }

  private call(listener: Listener<T>, what: string, run: () => void): void {
    if (listener.removed || this.stopped) return;
    try {
      run();
    } catch (e: unknown) {
      this.report(`informer${this.options.name !== undefined ? ` ${this.options.name}` : ''}: handler ${what} threw`, e);
    }
  }

  private startResync(listener: Listener<T>): void {
    if (listener.resyncPeriodMs <= 0 || listener.timer !== undefined || listener.removed || this.stopped) return;
    listener.timer = setInterval(() => {
      for (const object of this.store.list()) this.pending.push(() => this.call(listener, 'resync', () => listener.handler.onUpdate?.(object, object)));
      this.drain();
    }, listener.resyncPeriodMs);
    listener.timer.unref();
  }

  private report(message: string, error: unknown): void {
    if (this.stopped) return;
    this.options.onError?.(message, error);
  }
}

function clearListenerTimer<T extends KubeObject>(listener: Listener<T>): void {
  if (listener.timer !== undefined) clearInterval(listener.timer);
  listener.timer = undefined;
}

/** A new informer over a ListerWatcher (start it with start()). */
export function newSharedInformer<T extends KubeObject = KubeObject>(listerWatcher: ListerWatcher<T>, options: SharedInformerOptions = {}): SharedInformer<T> {
  return new SharedInformer(listerWatcher, options);
}
