import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatGoDuration, formatMicroTime, formatTime, parseGoDuration, parseRfc3339 } from './go-values.js';

describe('go-values', () => {
  it('reads RFC 3339 times with offsets and fractions', () => {
    assert.deepEqual(parseRfc3339('2024-01-02T03:04:05Z'), { seconds: 1704164645, nanos: 0 });
    assert.deepEqual(parseRfc3339('2024-01-02T04:04:05+01:00'), { seconds: 1704164645, nanos: 0 });
    assert.deepEqual(parseRfc3339('2024-01-02T03:04:05.123456789Z'), { seconds: 1704164645, nanos: 123456789 });
    assert.deepEqual(parseRfc3339('2024-01-02T03:04:05.5Z'), { seconds: 1704164645, nanos: 500000000 });
    assert.equal(parseRfc3339('2024-01-02 03:04:05'), undefined);
    assert.equal(parseRfc3339('yesterday'), undefined);
  });

  it('writes Time in whole seconds and MicroTime in microseconds, in UTC', () => {
    assert.equal(formatTime(1704164645), '2024-01-02T03:04:05Z');
    assert.equal(formatTime(0), '1970-01-01T00:00:00Z');
    assert.equal(formatMicroTime(1704164645, 123456789), '2024-01-02T03:04:05.123456Z');
    assert.equal(formatMicroTime(1704164645, 0), '2024-01-02T03:04:05.000000Z');
  });

  it('reads and writes Go durations as time.Duration does', () => {
    const cases: [string, number][] = [
      ['0s', 0],
      ['1ns', 1],
      ['1.5µs', 1500],
      ['300ms', 300e6],
      ['1s', 1e9],
      ['1m0s', 60e9],
      ['1h0m0s', 3600e9],
      ['1h2m3.5s', 3723.5e9],
      ['-2m30s', -150e9],
    ];
    for (const [text, ns] of cases) {
      assert.equal(formatGoDuration(ns), text);
      assert.equal(parseGoDuration(text), ns, text);
    }
    assert.equal(parseGoDuration('1.5h'), 5400e9);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration(''), undefined);
    assert.equal(parseGoDuration('5'), undefined);
    assert.equal(parseGoDuration('1d'), undefined);
  });
});
