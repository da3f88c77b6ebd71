/**
 * The watch cache's history: the most recent changes, so that a watch from a
 * recent resourceVersion is replayed from memory. Sized by time, as upstream
 * sizes its cache (about 75 s of history), and bounded by a count, so that a
 * burst of writes cannot make it grow without limit.
 *
 * `oldestRevision` is the revision the history starts after: a watch from any
 * revision at or above it can be served (every later change is here), one from
 * below it cannot.
 */
export interface TimedEvent {
  readonly revision: number;
}

export interface EventRingOptions {
  /** Keep changes this long (default 75 s). */
  readonly historyMs: number;
  /** Never more than this many changes (default 100 × 1024, upstream's upper bound). */
  readonly maxEvents: number;
  /** The clock (tests pass their own). */
  readonly now: () => number;
}

export class EventRing<E extends TimedEvent> {
  private slots: (E | undefined)[] = [];
  private times: number[] = [];
  private head = 0;
  private count = 0;
  private oldest = 0;

  constructor(private readonly options: EventRingOptions) {}

  get size(): number {
    return this.count;
  }

  /** Every change after this revision is held. */
  get oldestRevision(): number {
    return this.oldest;
  }

  /** Forget everything: the history now starts after `revision` (a new list). */
  reset(revision: number): void {
    this.slots = [];
    this.times = [];
    this.head = 0;
    this.count = 0;
    this.oldest = revision;
  }

  push(event: E): void {
    const now = this.options.now();
    this.evictOlderThan(now - this.options.historyMs);
    if (this.count === this.options.maxEvents) this.evictOne();
    if (this.count === this.slots.length) this.grow();
    const at = (this.head + this.count) % this.slots.length;
    this.slots[at] = event;
    this.times[at] = now;
    this.count++;
  }

  /** Drop changes older than the history window (also called on a timer, so a quiet cache shrinks). */
  expire(): void {
    this.evictOlderThan(this.options.now() - this.options.historyMs);
  }

  /** The held changes with a revision above `revision`, oldest first. */
  *after(revision: number): Generator<E> {
    // Binary search for the first one above: revisions increase along the ring.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.count; i++) yield this.at(i);
  }

  private at(i: number): E {
    return this.slots[(this.head + i) % this.slots.length]!;
  }

  private evictOlderThan(cutoff: number): void {
    while (this.count > 0 && this.times[this.head]! < cutoff) this.evictOne();
  }

  private evictOne(): void {
    this.oldest = this.slots[this.head]!.revision;
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.slots.length;
    this.count--;
  }

  private grow(): void {
    const capacity = Math.min(Math.max(16, this.slots.length * 2), this.options.maxEvents);
    const slots: (E | undefined)[] = new Array<E | undefined>(capacity);
    const times: number[] = new Array<number>(capacity);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) % this.slots.length;
      slots[i] = this.slots[from];
      times[i] = this.times[from]!;
    }
    this.slots = slots;
    this.times = times;
    this.head = 0;
  }
}
