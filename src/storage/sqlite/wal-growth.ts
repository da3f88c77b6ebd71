/** Units an operation counts besides its value's bytes (its index entries, roughly). */
const OP_UNITS = 512;
/** Units a transaction counts besides its operations (the inner pages it rewrites, roughly). */
const BATCH_UNITS = 8192;
/** WAL bytes per unit assumed before the first checkpoint measures it (pods measured about 4). */
const INITIAL_BYTES_PER_UNIT = 4;
const MIN_BYTES_PER_UNIT = 1;
const MAX_BYTES_PER_UNIT = 64;

/**
 * When the WAL is due for a checkpoint, without asking the file system. The
 * store checkpoints with PASSIVE, so the WAL file is reused from its start
 * instead of being truncated and grown again (cheaper writes and fsyncs), and
 * its size says nothing of what was written since. So the batches' writes are
 * counted in units (value bytes plus a share per operation and per
 * transaction), and each checkpoint reports how many WAL bytes it found: their
 * ratio to the units counted since the last one converts units to bytes for
 * the next interval.
 *
 * @example
 *   const growth = new WalGrowth(16 * 1024 * 1024);
 *   growth.recordBatch(64, 180_000);
 *   if (growth.due()) growth.checkpointed(walBytesTheCheckpointFound);
 */
export class WalGrowth {
  private units = 0;
  private bytesPerUnit = INITIAL_BYTES_PER_UNIT;

  constructor(private readonly limitBytes: number) {}

  /** A committed transaction of `ops` operations writing `valueBytes` bytes of values. */
  recordBatch(ops: number, valueBytes: number): void {
    this.units += valueBytes + ops * OP_UNITS + BATCH_UNITS;
  }

  /** The WAL written since the last checkpoint is estimated at the limit or more. */
  due(): boolean {
    return this.units * this.bytesPerUnit >= this.limitBytes;
  }

  /** Estimated WAL bytes written since the last checkpoint. */
  estimatedBytes(): number {
    return this.units * this.bytesPerUnit;
  }

  /** A checkpoint ran and found `walBytes` in the WAL: recalibrate, and count from zero. */
  checkpointed(walBytes: number): void {
    if (this.units > 0 && walBytes > 0) {
      const measured = walBytes / this.units;
      this.bytesPerUnit = Math.min(MAX_BYTES_PER_UNIT, Math.max(MIN_BYTES_PER_UNIT, measured));
    }
    this.units = 0;
  }
}
