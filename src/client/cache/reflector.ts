/**
 * The reflector: keeps a local store in step with a collection on a server by
 * listing it once and then watching it from the list's resourceVersion, as
 * client-go's Reflector does. It knows nothing of HTTP or storage: a
 * {@link ListerWatcher} does the talking (the API server's watch cache gives it
 * one over storage; clients will give it one over HTTP).
 *
 * Consistency contract, towards the {@link ReflectorStore}:
 * 1. The store first gets `replace(items, rv)`: the whole collection as of rv.
 * 2. Then `apply(change)` for every change after rv, in resourceVersion order,
 *    each exactly once, and `progress(rv)` for a bookmark: every change up to
 *    that rv has been applied.
 * 3. A watch that ends (server timeout, dropped connection, any error that is
 *    not an expiry) is opened again from the last resourceVersion the store
 *    got, so 2 goes on with no gap and no duplicate.
 * 4. When that resourceVersion is too old for the server (410 Expired/Gone),
 *    the reflector lists again and the store gets a new `replace`: the changes
 *    in between are folded into the new snapshot (a deletion shows as a key the
 *    new list lacks), never replayed one by one.
 * 5. Calls into the store are never concurrent and never happen after stop().
 * Failed lists and watches are retried with exponential backoff, reported to
 * onError; the loop never gives up until stop().
 *
 * @example
 *   const reflector = new Reflector(listerWatcher, store, { name: 'pods' });
 *   reflector.start();
 *   await reflector.synced;   // the first replace() has happened
 *   …
 *   reflector.stop();
 */
import { isResourceExpired } from '../../machinery/status.js';

/** A change to one item of the collection, at the resourceVersion it happened. */
export interface ReflectorChange<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** For DELETED: the item's last state. */
  readonly object: T;
  readonly resourceVersion: string;
}

/** A bookmark: nothing up to resourceVersion remains to be sent on this watch. */
export interface ReflectorBookmark {
  readonly type: 'BOOKMARK';
  readonly resourceVersion: string;
}

export type ReflectorEvent<T> = ReflectorChange<T> | ReflectorBookmark;

export interface ListSnapshot<T> {
  readonly items: readonly T[];
  /** The resourceVersion the list was read at; a watch from it sees every later change. */
  readonly resourceVersion: string;
}

/** A running watch. Iteration ends when the server ends it; it throws on failure (an expired resourceVersion: a 410 StatusError). */
export interface WatchSubscription<T> extends AsyncIterable<ReflectorEvent<T>> {
  cancel(): void;
  /** Ask the server for a bookmark at (at least) its current resourceVersion, where it can give one. */
  requestProgress?(): void;
}

export interface ListerWatcher<T> {
  /** The whole collection at one resourceVersion. */
  list(): Promise<ListSnapshot<T>>;
  /** Every change after resourceVersion; a too old one fails with 410 (here or while iterating). */
  watch(resourceVersion: string): WatchSubscription<T>;
}

export interface ReflectorStore<T> {
  replace(items: readonly T[], resourceVersion: string): void;
  apply(change: ReflectorChange<T>): void;
  progress(resourceVersion: string): void;
}

export interface ReflectorOptions {
  /** For messages. */
  readonly name?: string;
  /** First retry delay after a failure (default 100 ms), doubled up to maxBackoffMs (default 10 s). */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly onError?: (message: string, error: unknown) => void;
}

export class Reflector<T> {
  private running = false;
  private stopped = false;
  private subscription: WatchSubscription<T> | undefined;
  private lastResourceVersion = '';
  private backoffMs: number;
  private wake: (() => void) | undefined;
  private resolveSynced!: () => void;
  /** Resolves once the store has had its first replace(). */
  readonly synced: Promise<void>;
  private isSynced = false;

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly store: ReflectorStore<T>,
    private readonly options: ReflectorOptions = {},
  ) {
    this.backoffMs = this.initialBackoff;
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
  }

  /** The resourceVersion of the last change, bookmark or list the store got ('' before the first list). */
  get resourceVersion(): string {
    return this.lastResourceVersion;
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  /** True while a watch is open (a progress request can then be answered). */
  get watching(): boolean {
    return this.subscription !== undefined;
  }

  /** Start the list-and-watch loop (idempotent). */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    void this.loop();
  }

  /** Ask the current watch for a bookmark; a no-op when no watch is open or the source cannot. */
  requestProgress(): void {
    this.subscription?.requestProgress?.();
  }

  /** End the loop and the current watch; the store gets no call after this. */
  stop(): void {
    this.stopped = true;
    this.subscription?.cancel();
    this.wake?.();
  }

  private get initialBackoff(): number {
    return this.options.initialBackoffMs ?? 100;
  }

  private async loop(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      if (needList) {
        try {
          const snapshot = await this.lw.list();
          if (this.stopped) return;
          this.store.replace(snapshot.items, snapshot.resourceVersion);
          this.lastResourceVersion = snapshot.resourceVersion;
          needList = false;
          this.backoffMs = this.initialBackoff;
          if (!this.isSynced) {
            this.isSynced = true;
            this.resolveSynced();
          }
        } catch (e: unknown) {
          this.report('list failed', e);
          await this.sleepBackoff();
          continue;
        }
      }
      const outcome = await this.watchOnce();
      if (outcome === 'expired') {
        needList = true; // at once: the old resourceVersion is of no further use
      } else if (outcome === 'idle') {
        await this.sleepBackoff();
      }
    }
  }

  /** One watch from the last resourceVersion: 'expired' (relist), 'progressed' (rewatch now) or 'idle' (rewatch after a backoff). */
  private async watchOnce(): Promise<'expired' | 'progressed' | 'idle'> {
    let delivered = false;
    let subscription: WatchSubscription<T>;
    try {
      subscription = this.lw.watch(this.lastResourceVersion);
    } catch (e: unknown) {
      if (isResourceExpired(e)) return 'expired';
      this.report('watch failed', e);
      return 'idle';
    }
    this.subscription = subscription;
    try {
      for await (const event of subscription) {
        if (this.stopped) break;
        if (event.type === 'BOOKMARK') this.store.progress(event.resourceVersion);
        else this.store.apply(event);
        this.lastResourceVersion = event.resourceVersion;
        if (!delivered) {
          delivered = true;
          this.backoffMs = this.initialBackoff;
        }
      }
      return delivered ? 'progressed' : 'idle';
    } catch (e: unknown) {
      if (isResourceExpired(e)) return 'expired';
      this.report('watch ended with an error', e);
      return delivered ? 'progressed' : 'idle';
    } finally {
      this.subscription = undefined;
      subscription.cancel();
    }
  }

  private sleepBackoff(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const ms = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 10_000);
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private report(what: string, error: unknown): void {
    if (this.stopped) return;
    this.options.onError?.(`reflector${this.options.name !== undefined ? ` ${this.options.name}` : ''}: ${what}`, error);
  }
}
