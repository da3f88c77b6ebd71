/** Counters of a {@link GroupCommitQueue}. */
export interface GroupCommitStats {
  /** Transactions run (batches flushed). */
  readonly batches: number;
  /** Operations flushed, including those whose check failed. */
  readonly writes: number;
  /** writes / batches (0 before the first batch). */
  readonly meanBatchSize: number;
}

/**
 * Group commit: operations pushed during one turn of the event loop are handed
 * to `commit` together, on the next turn (setImmediate). `commit` runs the whole
 * batch synchronously (one sqlite transaction), so operations pushed while it
 * runs (from promise callbacks of the previous batch, for instance) land in the
 * next batch. With N concurrent writers each awaiting its previous write, a
 * batch holds about N operations, and one fsync serves them all.
 *
 * `commit` owns the operations: it must settle each one and never throw.
 */
export class GroupCommitQueue<Op> {
  private pending: Op[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private batches = 0;
  private writes = 0;
  private readonly commit: (batch: Op[]) => void;

  constructor(commit: (batch: Op[]) => void) {
    this.commit = commit;
  }

  /** Queue an operation for the next batch. */
  push(op: Op): void {
    this.pending.push(op);
    this.scheduled ??= setImmediate(this.onImmediate);
  }

  /** Commit whatever is queued now, synchronously (used by close). */
  flush(): void {
    if (this.scheduled !== undefined) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.batches++;
    this.writes += batch.length;
    this.commit(batch);
  }

  stats(): GroupCommitStats {
    return {
      batches: this.batches,
      writes: this.writes,
      meanBatchSize: this.batches === 0 ? 0 : this.writes / this.batches,
    };
  }

  private readonly onImmediate = (): void => {
    this.scheduled = undefined;
    this.flush();
  };
}
