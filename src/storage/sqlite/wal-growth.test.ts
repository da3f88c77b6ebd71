import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WalGrowth } from './wal-growth.js';

const MB = 1024 * 1024;

/** Batches of `ops` values of `bytes` recorded until the trigger is due (at most 100,000). */
function batchesUntilDue(growth: WalGrowth, ops: number, bytes: number): number {
  for (let n = 1; n <= 100_000; n++) {
    growth.recordBatch(ops, ops * bytes);
    if (growth.due()) return n;
  }
  return Infinity;
}

describe('WalGrowth', () => {
  it('is not due before anything is written, and is due once the estimate reaches the limit', () => {
    const growth = new WalGrowth(16 * MB);
    assert.equal(growth.due(), false);
    const n = batchesUntilDue(growth, 64, 3000);
    assert.ok(n > 1 && n < 1000, `${n} batches`);
    assert.ok(growth.estimatedBytes() >= 16 * MB);
  });

  it('counts from zero after a checkpoint', () => {
    const growth = new WalGrowth(MB);
    batchesUntilDue(growth, 10, 1000);
    growth.checkpointed(MB);
    assert.equal(growth.due(), false);
    assert.equal(growth.estimatedBytes(), 0);
  });

  it('recalibrates from the WAL bytes each checkpoint found: a WAL larger than estimated brings the next checkpoint sooner', () => {
    const growth = new WalGrowth(16 * MB);
    const first = batchesUntilDue(growth, 64, 3000);
    // The WAL turned out four times the estimate: the next interval is about a quarter as long.
    growth.checkpointed(4 * growth.estimatedBytes());
    const second = batchesUntilDue(growth, 64, 3000);
    assert.ok(Math.abs(second - first / 4) <= 1, `${first} then ${second} batches`);
    // Then a WAL half the estimate: twice as long again.
    growth.checkpointed(growth.estimatedBytes() / 2);
    const third = batchesUntilDue(growth, 64, 3000);
    assert.ok(Math.abs(third - second * 2) <= 2, `${second} then ${third} batches`);
  });

  it('keeps its ratio within bounds, and ignores a checkpoint that found no WAL', () => {
    const growth = new WalGrowth(MB);
    const first = batchesUntilDue(growth, 1, 100);
    growth.checkpointed(0); // nothing measured: the ratio stays
    assert.equal(batchesUntilDue(growth, 1, 100), first);
    growth.checkpointed(Number.MAX_SAFE_INTEGER); // absurd: clamped, checkpoints still need some writes
    assert.equal(growth.due(), false);
    assert.ok(batchesUntilDue(growth, 1, 100) >= 1);
  });
});
