/**
 * Which scheduled time a CronJob should run now, and when to look again
 * (upstream's mostRecentScheduleTime and nextScheduleTimeDuration).
 */
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { CronSchedule } from './cron-schedule.js';

export type CronJobObject = CronJob & KubeObject;

/** Upstream adds this to the next schedule time before requeueing, so the sync runs just after it. */
export const NEXT_SCHEDULE_DELTA_MS = 100;

export interface MostRecent {
  /** The time counting starts from: the last schedule time or creation, moved up to now − startingDeadlineSeconds. */
  readonly earliest: number;
  /** The latest schedule time in (earliest, now], if any. */
  readonly mostRecent: number | undefined;
  /** How many schedule times were missed: 0, 1 … (over 100 upstream warns TooManyMissedTimes). */
  readonly missed: number;
}

export function mostRecentScheduleTime(cronJob: CronJobObject, nowMs: number, schedule: CronSchedule, includeStartingDeadline: boolean): MostRecent {
  let earliest = Date.parse(cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp ?? new Date(nowMs).toISOString());
  const deadline = cronJob.spec?.startingDeadlineSeconds;
  if (includeStartingDeadline && deadline !== undefined && deadline !== null) earliest = Math.max(earliest, nowMs - deadline * 1000);
  const t1 = schedule.next(earliest);
  if (t1 === undefined || nowMs < t1) return { earliest, mostRecent: undefined, missed: 0 };
  const t2 = schedule.next(t1);
  if (t2 === undefined || nowMs < t2) return { earliest, mostRecent: t1, missed: 1 };
  // Many missed: jump by the interval, then walk to the last time not after now (irregular schedules).
  const interval = Math.max(1000, Math.round((t2 - t1) / 1000) * 1000);
  const missed = Math.floor((nowMs - t1) / interval) + 1;
  let mostRecent = t1 + (missed - 1) * interval;
  if (schedule.next(mostRecent - 1) !== mostRecent) mostRecent = t1;
  for (let t = schedule.next(mostRecent); t !== undefined && t <= nowMs; t = schedule.next(t)) mostRecent = t;
  return { earliest, mostRecent, missed };
}

/** How long until just after the next schedule time (undefined when the schedule never fires again). */
export function nextScheduleDelayMs(cronJob: CronJobObject, nowMs: number, schedule: CronSchedule): number | undefined {
  const { earliest, mostRecent } = mostRecentScheduleTime(cronJob, nowMs, schedule, false);
  const next = schedule.next(mostRecent ?? earliest);
  if (next === undefined) return undefined;
  // A schedule time at or before now already passed (e.g. missed for good): look again at the next one after now.
  const target = next <= nowMs ? schedule.next(nowMs) : next;
  return target === undefined ? undefined : target + NEXT_SCHEDULE_DELTA_MS - nowMs;
}
