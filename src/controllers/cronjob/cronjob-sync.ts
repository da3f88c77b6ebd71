/**
 * The sync of one CronJob (after upstream's cronjob controller v2): reconcile
 * status.active with the Jobs it owns (SawCompletedJob, MissingJob,
 * lastSuccessfulTime), then — unless suspended or being deleted — start the
 * Job of the most recent unmet schedule time (honouring
 * startingDeadlineSeconds and concurrencyPolicy Allow/Forbid/Replace), trim
 * finished Jobs to the history limits, write the status, and ask to be
 * synced again just after the next schedule time.
 */
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import { CONTROLLER_UID_INDEX, type Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { CRON_JOBS, JOBS } from '../../client/rest/resources.js';
import { deepCopy, formatTime, jsonEqual, type KubeObject } from '../../machinery/meta.js';
import { isAlreadyExists, isNotFound } from '../../machinery/status.js';
import type { ReconcileResult } from '../reconcile-loop.js';
import { parseSchedule, ScheduleError, zoneOffsetMs, type CronSchedule } from './cron-schedule.js';
import { mostRecentScheduleTime, nextScheduleDelayMs, type CronJobObject } from './schedule-times.js';
import { isKnownTimeZone } from '../../api/batch/v1/cron-schedule.js';

export type JobObject = Job & KubeObject;

export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

export interface CronJobSyncerDeps {
  readonly client: Client;
  readonly cronJobs: Indexer<CronJobObject>;
  /** Must have the CONTROLLER_UID_INDEX (every informer has it). */
  readonly jobs: Indexer<JobObject>;
  readonly recorder: EventRecorder;
  /** The clock (tests inject their own). */
  readonly now?: () => number;
}

const finishedCondition = (job: JobObject): string | undefined =>
  (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

/** `<cronjob>-<scheduled time in minutes since the epoch>` (upstream's getJobName). */
export const jobNameFor = (cronJob: CronJobObject, scheduledMs: number): string => `${cronJob.metadata.name ?? ''}-${Math.floor(scheduledMs / 60_000)}`;

/** Go's RFC 3339 of an instant in a zone: `2026-11-30T09:00:00+01:00`, `Z` for a zero offset. */
export function formatInZone(ms: number, zone: string): string {
  const offset = zone === 'UTC' ? 0 : zoneOffsetMs(ms, zone);
  const wall = new Date(ms + offset).toISOString().replace(/\.\d{3}Z$/, '');
  if (offset === 0) return `${wall}Z`;
  const minutes = Math.abs(offset) / 60_000;
  const sign = offset < 0 ? '-' : '+';
  return `${wall}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The Job of a CronJob for a scheduled time (upstream's getJobFromTemplate2). */
export function jobFromTemplate(cronJob: CronJobObject, scheduledMs: number): JobObject {
  const template = deepCopy(cronJob.spec?.jobTemplate ?? {});
  const zone = cronJob.spec?.timeZone ?? 'UTC';
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cronJob, scheduledMs),
      namespace: cronJob.metadata.namespace ?? '',
      labels: { ...(template.metadata?.labels ?? {}) },
      annotations: { ...(template.metadata?.annotations ?? {}), [SCHEDULED_TIMESTAMP_ANNOTATION]: formatInZone(scheduledMs, zone === '' ? 'UTC' : zone) },
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'CronJob', name: cronJob.metadata.name ?? '', uid: cronJob.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: template.spec ?? { template: {} },
  };
}

const refOf = (job: JobObject): ObjectReference => ({
  kind: 'Job',
  namespace: job.metadata.namespace ?? '',
  name: job.metadata.name ?? '',
  uid: job.metadata.uid ?? '',
  apiVersion: 'batch/v1',
  resourceVersion: job.metadata.resourceVersion ?? '',
});

export function newCronJobSyncer(deps: CronJobSyncerDeps): (key: string) => Promise<ReconcileResult | void> {
  const now = deps.now ?? Date.now;
  const cronJobsClient = deps.client.resource<CronJobObject>(CRON_JOBS);
  const jobsClient = deps.client.resource<JobObject>(JOBS);

  const deleteJob = async (cronJob: CronJobObject, name: string): Promise<boolean> => {
    try {
      await jobsClient.delete(name, { namespace: cronJob.metadata.namespace ?? '', propagationPolicy: 'Background' });
    } catch (e: unknown) {
      if (!isNotFound(e)) {
        deps.recorder.event(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
    }
    deps.recorder.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
    return true;
  };

  return async (key) => {
    const cached = deps.cronJobs.get(key);
    if (cached === undefined) return;
    let cronJob = deepCopy(cached);
    const namespace = cronJob.metadata.namespace ?? '';
    let status = (cronJob.status ??= {});
    let original = deepCopy(status);
    const jobs = deps.jobs.byIndex(CONTROLLER_UID_INDEX, cronJob.metadata.uid ?? '');
    const nowMs = now();
    let requeueAfterMs: number | undefined;

    // 1. The active list against the Jobs that exist.
    const active = (): ObjectReference[] => (status.active ??= []);
    const inActive = (uid: string | undefined): boolean => active().some((r) => r.uid === uid);
    const removeFromActive = (uid: string | undefined): void => {
      status.active = active().filter((r) => r.uid !== uid);
    };
    const childUids = new Set(jobs.map((j) => j.metadata.uid));
    // A running Job of ours missing from status.active: the cache may hold the CronJob from
    // before the status write that listed it (a Job just created). Read the CronJob afresh, as
    // upstream does, before calling such a Job unexpected.
    const unlisted = jobs.filter((j) => !inActive(j.metadata.uid) && finishedCondition(j) === undefined).map((j) => j.metadata.uid);
    if (unlisted.length > 0) {
      const fresh = await cronJobsClient.get(cronJob.metadata.name ?? '', { namespace });
      if (fresh.metadata.uid === cronJob.metadata.uid && (fresh.status?.active ?? []).some((r) => unlisted.includes(r.uid))) {
        cronJob = deepCopy(fresh);
        status = cronJob.status ??= {};
        original = deepCopy(status);
      }
    }
    for (const job of jobs) {
      const finished = finishedCondition(job);
      if (!inActive(job.metadata.uid) && finished === undefined) {
        deps.recorder.event(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name ?? ''}`);
      } else if (inActive(job.metadata.uid) && finished !== undefined) {
        removeFromActive(job.metadata.uid);
        deps.recorder.event(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name ?? ''}, condition: ${finished}`);
      }
      if (finished === 'Complete' && job.status?.completionTime !== undefined) {
        const last = status.lastSuccessfulTime === undefined ? undefined : Date.parse(status.lastSuccessfulTime);
        if (last === undefined || Date.parse(job.status.completionTime) > last) status.lastSuccessfulTime = job.status.completionTime;
      }
    }
    for (const ref of [...active()]) {
      if (childUids.has(ref.uid)) continue;
      try {
        const job = await jobsClient.get(ref.name ?? '', { namespace });
        if (job.metadata.uid === ref.uid) continue;
      } catch (e: unknown) {
        if (!isNotFound(e)) throw e;
      }
      deps.recorder.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name ?? ''}`);
      removeFromActive(ref.uid);
    }

    // 2. Start the Job of the most recent unmet schedule time.
    const schedule = cronJob.metadata.deletionTimestamp === undefined && cronJob.spec?.suspend !== true ? scheduleOf(cronJob, deps.recorder) : undefined;
    if (schedule !== undefined) {
      const { mostRecent, missed } = mostRecentScheduleTime(cronJob, nowMs, schedule, true);
      if (missed > 100) {
        deps.recorder.event(cronJob, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
      }
      const deadline = cronJob.spec?.startingDeadlineSeconds;
      const tooLate = mostRecent !== undefined && deadline !== undefined && deadline !== null && mostRecent + deadline * 1000 < nowMs;
      const jobName = mostRecent === undefined ? '' : jobNameFor(cronJob, mostRecent);
      const alreadyDone =
        mostRecent === undefined ||
        active().some((r) => r.name === jobName) ||
        (status.lastScheduleTime !== undefined && Date.parse(status.lastScheduleTime) === mostRecent);
      if (mostRecent !== undefined && tooLate) {
        deps.recorder.event(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${formatRFC1123Z(mostRecent)}`);
      } else if (!alreadyDone) {
        const policy = cronJob.spec?.concurrencyPolicy ?? 'Allow';
        if (policy === 'Forbid' && active().length > 0) {
          deps.recorder.event(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
        } else {
          if (policy === 'Replace') {
            for (const ref of [...active()]) {
              await deleteJob(cronJob, ref.name ?? '');
              removeFromActive(ref.uid);
            }
          }
          let created: JobObject;
          try {
            created = await jobsClient.create(jobFromTemplate(cronJob, mostRecent), { namespace });
            deps.recorder.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name ?? ''}`);
          } catch (e: unknown) {
            if (!isAlreadyExists(e)) {
              deps.recorder.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${e instanceof Error ? e.message : String(e)}`);
              await writeStatus();
              throw e;
            }
            // Created by an earlier sync whose status write did not land (a conflict, a crash): take it as this run's
            // Job when it is ours, rather than retrying the create for ever as upstream does.
            created = await jobsClient.get(jobName, { namespace });
            if (!(created.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === cronJob.metadata.uid)) {
              await writeStatus();
              throw e;
            }
          }
          if (!inActive(created.metadata.uid)) active().push(refOf(created));
          status.lastScheduleTime = formatTime(new Date(mostRecent));
        }
      }
      requeueAfterMs = nextScheduleDelayMs(cronJob, nowMs, schedule);
    }

    // 3. History limits.
    if (cronJob.metadata.deletionTimestamp === undefined) {
      const trim = async (kind: 'Complete' | 'Failed', limit: number | null | undefined): Promise<void> => {
        if (limit === undefined || limit === null) return;
        const finished = jobs
          .filter((j) => finishedCondition(j) === kind && !inActive(j.metadata.uid))
          .sort((a, b) => startOf(a) - startOf(b));
        for (const job of finished.slice(0, Math.max(0, finished.length - limit))) await deleteJob(cronJob, job.metadata.name ?? '');
      };
      await trim('Complete', cronJob.spec?.successfulJobsHistoryLimit);
      await trim('Failed', cronJob.spec?.failedJobsHistoryLimit);
    }

    await writeStatus();
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs: Math.max(1, requeueAfterMs) };

    async function writeStatus(): Promise<void> {
      if ((status.active ?? []).length === 0) delete status.active;
      if (jsonEqual(status, original)) return;
      await cronJobsClient.updateStatus(cronJob, { namespace });
    }
  };
}

/** The start time a Job is ordered by for history trimming: its status.startTime, else its creation. */
function startOf(job: JobObject): number {
  const t = Date.parse(job.status?.startTime ?? job.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/** Parse the CronJob's schedule in its time zone, recording upstream's Warning when it cannot. */
function scheduleOf(cronJob: CronJobObject, recorder: EventRecorder): CronSchedule | undefined {
  const zone = cronJob.spec?.timeZone ?? undefined;
  if (zone !== undefined && !isKnownTimeZone(zone)) {
    recorder.event(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${zone}": unknown time zone ${zone}`);
    return undefined;
  }
  const text = cronJob.spec?.schedule ?? '';
  try {
    return parseSchedule(text, zone);
  } catch (e: unknown) {
    if (!(e instanceof ScheduleError)) throw e;
    recorder.event(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${text}" : ${e.message}`);
    return undefined;
  }
}

/** Go's time.RFC1123Z in UTC: `Mon, 30 Nov 2026 10:00:00 +0000`. */
export function formatRFC1123Z(ms: number): string {
  const d = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]}, ${p(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}
