/**
 * The TTL-after-finished controller (upstream `ttl-after-finished`): deletes a
 * Job `spec.ttlSecondsAfterFinished` seconds after it finished (its Complete
 * or Failed condition turned True), with foreground propagation so that its
 * pods go first. Before deleting it reads the Job again from the API server
 * and deletes on that resourceVersion only: a Job whose TTL was raised or
 * removed meanwhile is kept. A Job not yet due is requeued for the time left,
 * so no timer lives outside the work queue.
 */
import { objectKey, splitObjectKey } from '../../client/cache/interfaces.js';
import { JOBS } from '../../client/rest/resources.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { isJobFinished, type JobObject } from '../job/job-model.js';
import { startReconcileLoop, terminalError, type ReconcileResult } from '../reconcile-loop.js';

export type { JobObject };

/** When the Job finished: the transition time of its Complete or Failed condition that is True. */
export function jobFinishTime(job: JobObject): number | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') {
      const at = Date.parse(c.lastTransitionTime ?? '');
      return Number.isNaN(at) ? undefined : at;
    }
  }
  return undefined;
}

/** A Job this controller has to look at: it has a TTL, it finished and it is not already being deleted. */
export function needsCleanup(job: JobObject): boolean {
  return typeof job.spec?.ttlSecondsAfterFinished === 'number' && isJobFinished(job) && job.metadata.deletionTimestamp === undefined;
}

/** Milliseconds until the Job is due (<= 0: due now); a terminal error when it finished without a time. */
function timeLeft(job: JobObject, now: number): number {
  const finished = jobFinishTime(job);
  if (finished === undefined) throw terminalError(`unable to find the time when the Job ${objectKey(job)} finished`);
  return finished + job.spec!.ttlSecondsAfterFinished! * 1000 - now;
}

export interface TtlAfterFinishedOptions {
  /** The clock (tests inject their own). */
  readonly now?: () => number;
}

export function newTtlAfterFinishedController(options: TtlAfterFinishedOptions = {}): ControllerDefinition {
  const now = options.now ?? Date.now;
  return {
    name: 'ttl-after-finished',
    enabledByDefault: true,
    start(ctx: ControllerContext): void {
      const jobs = ctx.informers.informerFor<JobObject>(JOBS);
      const client = ctx.client.resource<JobObject>(JOBS);
      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const { namespace, name } = splitObjectKey(key);
        const cached = jobs.indexer.get(key);
        if (cached === undefined || !needsCleanup(cached)) return;
        const left = timeLeft(cached, now());
        if (left > 0) return { requeueAfterMs: left };
        // The cache may be behind: decide on the Job as the API server has it now.
        let fresh: JobObject;
        try {
          fresh = await client.get(name, { namespace });
        } catch (e: unknown) {
          if (isNotFound(e)) return;
          throw e;
        }
        if (!needsCleanup(fresh)) return;
        const freshLeft = timeLeft(fresh, now());
        if (freshLeft > 0) return { requeueAfterMs: freshLeft };
        try {
          await client.delete(name, {
            namespace,
            propagationPolicy: 'Foreground',
            ...(fresh.metadata.resourceVersion !== undefined ? { preconditions: { resourceVersion: fresh.metadata.resourceVersion } } : {}),
          });
          ctx.logger.debug({ job: key }, 'deleted a finished Job whose TTL expired');
        } catch (e: unknown) {
          if (isNotFound(e)) return;
          // Changed since the read: look again with what the watch brings.
          if (isConflict(e)) return { requeueAfterMs: 0 };
          throw e;
        }
      };
      const loop = startReconcileLoop(ctx, { name: 'ttl-after-finished', workers: ctx.options.concurrentSyncs('ttl-after-finished'), reconcile });
      const onJob = (job: JobObject): void => {
        if (needsCleanup(job)) loop.enqueue(objectKey(job));
      };
      jobs.addEventHandler({ onAdd: onJob, onUpdate: (_before, after) => onJob(after) });
    },
  };
}

export const ttlAfterFinishedController: ControllerDefinition = newTtlAfterFinishedController();
