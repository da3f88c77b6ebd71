import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedule, ScheduleError } from './cron-schedule.js';
import { mostRecentScheduleTime, nextScheduleDelayMs, type CronJobObject } from './schedule-times.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());
const next = (schedule: string, after: string, zone?: string): string | undefined => iso(parseSchedule(schedule, zone).next(at(after)));

describe('parseSchedule().next', () => {
  it('every minute, strictly after', () => {
    assert.equal(next('* * * * *', '2026-11-30T10:00:00Z'), '2026-11-30T10:01:00.000Z');
    assert.equal(next('* * * * *', '2026-11-30T10:00:30Z'), '2026-11-30T10:01:00.000Z');
  });
  it('steps, ranges, lists and names', () => {
    assert.equal(next('*/15 * * * *', '2026-11-30T10:01:00Z'), '2026-11-30T10:15:00.000Z');
    assert.equal(next('5 9-17/4 * * *', '2026-11-30T10:00:00Z'), '2026-11-30T13:05:00.000Z');
    assert.equal(next('0 0 * * mon,fri', '2026-11-30T10:00:00Z'), '2026-12-04T00:00:00.000Z');
    assert.equal(next('0 12 1 jan *', '2026-11-30T10:00:00Z'), '2027-01-01T12:00:00.000Z');
  });
  it('ORs day of month and day of week unless one starts with *', () => {
    // 2026-11-30 is a Monday.
    assert.equal(next('0 0 15 * 1', '2026-11-30T10:00:00Z'), '2026-12-07T00:00:00.000Z');
    assert.equal(next('0 0 * * 1', '2026-11-30T10:00:00Z'), '2026-12-07T00:00:00.000Z');
    assert.equal(next('0 0 */1 * 3', '2026-11-30T10:00:00Z'), '2026-12-02T00:00:00.000Z');
    assert.equal(next('0 0 1-31/2 * 3', '2026-11-30T10:00:00Z'), '2026-12-01T00:00:00.000Z', 'a step above 1 clears the star');
  });
  it('descriptors and @every', () => {
    assert.equal(next('@hourly', '2026-11-30T10:00:00Z'), '2026-11-30T11:00:00.000Z');
    assert.equal(next('@daily', '2026-11-30T10:00:00Z'), '2026-12-01T00:00:00.000Z');
    assert.equal(next('@weekly', '2026-11-30T10:00:00Z'), '2026-12-06T00:00:00.000Z');
    assert.equal(next('@monthly', '2026-11-30T10:00:00Z'), '2026-12-01T00:00:00.000Z');
    assert.equal(next('@yearly', '2026-11-30T10:00:00Z'), '2027-01-01T00:00:00.000Z');
    assert.equal(next('@every 90s', '2026-11-30T10:00:00.500Z'), '2026-11-30T10:01:30.000Z');
  });
  it('matches the wall clock of the time zone (field or TZ= prefix)', () => {
    assert.equal(next('0 9 * * *', '2026-11-30T10:00:00Z', 'Europe/Paris'), '2026-12-01T08:00:00.000Z');
    assert.equal(next('TZ=America/New_York 0 9 * * *', '2026-07-01T00:00:00Z'), '2026-07-01T13:00:00.000Z');
  });
  it('skips a wall time that DST removes', () => {
    // 2027-03-28 02:30 does not exist in Paris.
    assert.equal(next('30 2 * * *', '2027-03-27T12:00:00Z', 'Europe/Paris'), '2027-03-29T00:30:00.000Z');
  });
  it('has no next time for an impossible date', () => {
    assert.equal(next('0 0 30 2 *', '2026-11-30T10:00:00Z'), undefined);
  });
  it('rejects what robfig rejects, with its message', () => {
    assert.throws(() => parseSchedule('* * *'), (e: unknown) => e instanceof ScheduleError && e.message === 'expected exactly 5 fields, found 3: [* * *]');
    assert.throws(() => parseSchedule('0 0 * * *', 'Mars/Base'), ScheduleError);
  });
});

describe('mostRecentScheduleTime', () => {
  const cronJob = (status: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): CronJobObject => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', namespace: 'default', creationTimestamp: '2026-11-30T10:00:00Z' },
    spec: { schedule: '*/5 * * * *', jobTemplate: {}, ...spec },
    status,
  });
  const schedule = parseSchedule('*/5 * * * *');
  it('none before the first time, one, then many missed', () => {
    assert.deepEqual(mostRecentScheduleTime(cronJob(), at('2026-11-30T10:04:00Z'), schedule, true), { earliest: at('2026-11-30T10:00:00Z'), mostRecent: undefined, missed: 0 });
    assert.equal(iso(mostRecentScheduleTime(cronJob(), at('2026-11-30T10:06:00Z'), schedule, true).mostRecent), '2026-11-30T10:05:00.000Z');
    const many = mostRecentScheduleTime(cronJob(), at('2026-11-30T19:02:00Z'), schedule, true);
    assert.equal(iso(many.mostRecent), '2026-11-30T19:00:00.000Z');
    assert.equal(many.missed, 108);
  });
  it('counts from the last schedule time, and not before now − startingDeadlineSeconds', () => {
    const after = cronJob({ lastScheduleTime: '2026-11-30T10:05:00Z' });
    assert.equal(mostRecentScheduleTime(after, at('2026-11-30T10:06:00Z'), schedule, true).mostRecent, undefined);
    const withDeadline = cronJob({}, { startingDeadlineSeconds: 60 });
    assert.equal(mostRecentScheduleTime(withDeadline, at('2026-11-30T10:07:00Z'), schedule, true).mostRecent, undefined);
  });
  it('walks irregular schedules to the right time', () => {
    const monthly = parseSchedule('0 0 1 * *');
    const job = cronJob({ lastScheduleTime: '2026-01-01T00:00:00Z' });
    assert.equal(iso(mostRecentScheduleTime(job, at('2026-11-30T10:00:00Z'), monthly, true).mostRecent), '2026-11-01T00:00:00.000Z');
  });
  it('the requeue delay lands just after the next time', () => {
    assert.equal(nextScheduleDelayMs(cronJob({ lastScheduleTime: '2026-11-30T10:05:00Z' }), at('2026-11-30T10:06:00Z'), schedule), 4 * 60_000 + 100);
  });
});
