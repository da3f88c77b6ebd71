import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goDurationError, parseCronSchedule } from './cron-schedule.js';

describe('cron schedules (robfig/cron v3 standard parser)', () => {
  it('accepts the standard forms', () => {
    for (const s of ['* * * * *', '*/5 * * * *', '0 0 1 1 *', '0 9-17 * * MON-FRI', '15,45 */2 ? jan,jul sun', '@hourly', '@daily', '@midnight', '@weekly', '@monthly', '@yearly', '@annually', '@every 1h30m', 'CRON_TZ=UTC 0 * * * *']) {
      assert.equal(parseCronSchedule(s), undefined, s);
    }
  });

  it('rejects with the parser messages', () => {
    assert.equal(parseCronSchedule(''), 'empty spec string');
    assert.equal(parseCronSchedule('* * *'), 'expected exactly 5 fields, found 3: [* * *]');
    assert.equal(parseCronSchedule('60 * * * *'), 'end of range (60) above maximum (59): 60');
    assert.equal(parseCronSchedule('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(parseCronSchedule('5-1 * * * *'), 'beginning of range (5) beyond end of range (1): 5-1');
    assert.equal(parseCronSchedule('*/0 * * * *'), 'step of range should be a positive number: */0');
    assert.equal(parseCronSchedule('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
    assert.equal(parseCronSchedule('*/1/2 * * * *'), 'too many slashes: */1/2');
    assert.equal(parseCronSchedule('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(parseCronSchedule('* * * * 7'), 'end of range (7) above maximum (6): 7');
    assert.equal(parseCronSchedule('@often'), 'unrecognized descriptor: @often');
    assert.equal(parseCronSchedule('@every 5x'), 'failed to parse duration @every 5x: time: unknown unit "x" in duration "5x"');
    assert.equal(parseCronSchedule('TZ=Mars/Base * * * * *'), 'provided bad location Mars/Base: unknown time zone Mars/Base');
  });

  it('Go durations', () => {
    assert.equal(goDurationError('1h2m3.5s'), undefined);
    assert.equal(goDurationError('10'), 'time: missing unit in duration "10"');
    assert.equal(goDurationError('abc'), 'time: invalid duration "abc"');
  });
});
