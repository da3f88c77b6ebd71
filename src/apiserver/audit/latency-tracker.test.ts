import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatGoDuration, LatencyTracker } from './latency-tracker.js';

describe('formatGoDuration', () => {
  it('prints durations as Go time.Duration does', () => {
    const cases: Array<[bigint, string]> = [
      [0n, '0s'],
      [780n, '780ns'],
      [3_056n, '3.056µs'],
      [629_994n, '629.994µs'],
      [12_000_000n, '12ms'],
      [3_746_852n, '3.746852ms'],
      [4_730_661_757n, '4.730661757s'],
      [62_500_000_000n, '1m2.5s'],
      [7_201_000_000_000n, '2h0m1s'],
      [-1_500n, '-1.5µs'],
    ];
    for (const [ns, text] of cases) assert.equal(formatGoDuration(ns), text);
  });
});

describe('LatencyTracker', () => {
  it('adds up the time of a stage entered twice, also when the work throws', async () => {
    const tracker = new LatencyTracker();
    tracker.add('etcd', 5n);
    await assert.rejects(tracker.time('etcd', () => Promise.reject(new Error('down'))));
    const etcd = new Map(tracker.entries()).get('etcd');
    assert.ok(etcd !== undefined && etcd > 5n);
  });
});
