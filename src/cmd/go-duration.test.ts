import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationFlag, formatDurationMs } from './go-duration.js';

describe('duration flags', () => {
  it('take Go durations in milliseconds', () => {
    assert.equal(durationFlag('40s'), 40_000);
    assert.equal(durationFlag('5m'), 300_000);
    assert.equal(durationFlag('1h30m'), 5_400_000);
    assert.equal(durationFlag('1.5s'), 1500);
    assert.equal(durationFlag('300ms'), 300);
    assert.equal(durationFlag('0'), 0);
  });

  it('refuse anything else with a message naming the value', () => {
    for (const bad of ['', '40', 's', '1x', '1h 30m', 'abc']) {
      assert.throws(() => durationFlag(bad), (e: Error) => e.message.startsWith(`invalid duration "${bad}"`));
    }
    assert.throws(() => durationFlag('-1s'), /invalid duration "-1s": must not be negative/);
  });

  it('format as Go does', () => {
    assert.equal(formatDurationMs(40_000), '40s');
    assert.equal(formatDurationMs(5_400_000), '1h30m0s');
    assert.equal(formatDurationMs(12 * 3_600_000), '12h0m0s');
  });
});
