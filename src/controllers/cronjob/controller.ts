/**
 * The cronjob controller (upstream `cronjob`, Events from
 * `cronjob-controller`): starts a CronJob's Jobs on schedule. The sync is
 * in cronjob-sync.ts; each sync asks to run again just after the next
 * schedule time, so no timer lives outside the work queue.
 */
import { objectKey } from '../../client/cache/interfaces.js';
import { CRON_JOBS, JOBS } from '../../client/rest/resources.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import { newCronJobSyncer, type JobObject } from './cronjob-sync.js';
import type { CronJobObject } from './schedule-times.js';

/** The key of the CronJob that controls a Job, if any. */
export function controllingCronJobKey(job: JobObject): string | undefined {
  const ref = (job.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  if (ref === undefined || ref.kind !== 'CronJob' || !ref.apiVersion.startsWith('batch/')) return undefined;
  return `${job.metadata.namespace ?? ''}/${ref.name}`;
}

export interface CronJobControllerOptions {
  /** The clock (tests inject their own). */
  readonly now?: () => number;
}

export function newCronJobController(options: CronJobControllerOptions = {}): ControllerDefinition {
  return {
    name: 'cronjob',
    enabledByDefault: true,
    start(ctx: ControllerContext): void {
      const cronJobs = ctx.informers.informerFor<CronJobObject>(CRON_JOBS);
      const jobs = ctx.informers.informerFor<JobObject>(JOBS);
      const sync = newCronJobSyncer({
        client: ctx.client,
        cronJobs: cronJobs.indexer,
        jobs: jobs.indexer,
        recorder: ctx.events.recorderFor('cronjob-controller'),
        ...(options.now !== undefined ? { now: options.now } : {}),
      });
      const loop = startReconcileLoop(ctx, { name: 'cronjob', reconcile: (key) => sync(key) });
      cronJobs.addEventHandler({
        onAdd: (cj) => loop.enqueue(objectKey(cj)),
        onUpdate: (_o, cj) => loop.enqueue(objectKey(cj)),
      });
      const onJob = (job: JobObject): void => {
        const key = controllingCronJobKey(job);
        if (key !== undefined) loop.enqueue(key);
      };
      jobs.addEventHandler({ onAdd: onJob, onUpdate: (before, after) => (onJob(before), onJob(after)), onDelete: onJob });
    },
  };
}

export const cronJobController: ControllerDefinition = newCronJobController();
