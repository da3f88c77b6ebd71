import { eventRevision, type StorageEvent } from '../interface.js';
import type { WatchStream } from '../watch-stream.js';

interface Subscriber {
  readonly stream: WatchStream;
  /** Events at or below this revision were replayed already (or precede the watch's start). */
  readonly after: number;
}

/**
 * The running watches of one store, fed in-process after each commit.
 *
 * Watchers are grouped by prefix, and the hub remembers the distinct prefix
 * lengths; an event's key is matched by looking up its own prefixes of those
 * lengths. Dispatch therefore costs (distinct prefix lengths) map lookups per
 * event, however many watchers there are, and never touches sqlite.
 */
export class WatcherHub {
  private readonly byPrefix = new Map<string, Set<Subscriber>>();
  /** Distinct prefix lengths, ascending, with how many prefixes have each. */
  private lengths: number[] = [];
  private readonly lengthCounts = new Map<number, number>();

  /** True when no watch is running. */
  get empty(): boolean {
    return this.byPrefix.size === 0;
  }

  /**
   * Feed `stream` every dispatched event under `prefix` whose revision is above
   * `after`. Returns the function that unregisters it (idempotent).
   */
  add(prefix: string, after: number, stream: WatchStream): () => void {
    const subscriber: Subscriber = { stream, after };
    let set = this.byPrefix.get(prefix);
    if (set === undefined) {
      set = new Set();
      this.byPrefix.set(prefix, set);
      this.addLength(prefix.length);
    }
    set.add(subscriber);
    return () => this.remove(prefix, subscriber);
  }

  /** True when some watcher's prefix covers `key` (so its events need prevKv). */
  matches(key: string): boolean {
    for (const length of this.lengths) {
      if (length > key.length) break;
      if (this.byPrefix.has(key.slice(0, length))) return true;
    }
    return false;
  }

  /** Push committed events, in revision order, to the watchers they concern. */
  dispatch(events: readonly StorageEvent[]): void {
    if (this.byPrefix.size === 0) return;
    for (const event of events) {
      const key = event.type === 'PUT' ? event.kv.key : event.key;
      const revision = eventRevision(event);
      for (const length of this.lengths) {
        if (length > key.length) break;
        const set = this.byPrefix.get(key.slice(0, length));
        if (set === undefined) continue;
        for (const subscriber of set) {
          if (revision > subscriber.after) subscriber.stream.push(event);
        }
      }
    }
  }

  /** End every watch (the store is closing). */
  endAll(): void {
    const streams: WatchStream[] = [];
    for (const set of this.byPrefix.values()) for (const s of set) streams.push(s.stream);
    for (const stream of streams) stream.end();
    this.byPrefix.clear();
    this.lengths = [];
    this.lengthCounts.clear();
  }

  private remove(prefix: string, subscriber: Subscriber): void {
    const set = this.byPrefix.get(prefix);
    if (set === undefined || !set.delete(subscriber)) return;
    if (set.size > 0) return;
    this.byPrefix.delete(prefix);
    const count = (this.lengthCounts.get(prefix.length) ?? 1) - 1;
    if (count > 0) {
      this.lengthCounts.set(prefix.length, count);
    } else {
      this.lengthCounts.delete(prefix.length);
      this.lengths = this.lengths.filter((l) => l !== prefix.length);
    }
  }

  private addLength(length: number): void {
    const count = this.lengthCounts.get(length) ?? 0;
    this.lengthCounts.set(length, count + 1);
    if (count === 0) this.lengths = [...this.lengths, length].sort((a, b) => a - b);
  }
}
