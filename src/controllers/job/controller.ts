/**
 * The job controller (upstream `job`, Events from `job-controller`): runs a
 * Job's pods to completion. The sync is in job-sync.ts; this file wires the
 * informers, the expectations and the work queue.
 */
import { objectKey } from '../../client/cache/interfaces.js';
import { JOBS, PODS } from '../../client/rest/resources.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import type { BackoffOptions } from './backoff.js';
import { Expectations } from './expectations.js';
import type { JobObject, PodObject } from './job-model.js';
import { newJobSyncer } from './job-sync.js';

/** The key of the Job that controls a pod, if any. */
export function controllingJobKey(pod: PodObject): string | undefined {
  const ref = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  if (ref === undefined || ref.kind !== 'Job' || !ref.apiVersion.startsWith('batch/')) return undefined;
  return `${pod.metadata.namespace ?? ''}/${ref.name}`;
}

export interface JobControllerOptions {
  /** The clock (tests inject their own). */
  readonly now?: () => number;
  /** The pod-failure backoff (tests shorten it). */
  readonly backoff?: BackoffOptions;
}

export function newJobController(options: JobControllerOptions = {}): ControllerDefinition {
  return {
    name: 'job',
    enabledByDefault: true,
    start(ctx: ControllerContext): void {
      const jobs = ctx.informers.informerFor<JobObject>(JOBS);
      const pods = ctx.informers.informerFor<PodObject>(PODS);
      const expectations = new Expectations();
      const sync = newJobSyncer({
        client: ctx.client,
        jobs: jobs.indexer,
        pods: pods.indexer,
        recorder: ctx.events.recorderFor('job-controller'),
        expectations,
        ...(options.now !== undefined ? { now: options.now } : {}),
        ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
      });
      const loop = startReconcileLoop(ctx, { name: 'job', reconcile: (key) => sync(key) });
      jobs.addEventHandler({
        onAdd: (job) => loop.enqueue(objectKey(job)),
        onUpdate: (_old, job) => loop.enqueue(objectKey(job)),
        onDelete: (job) => {
          expectations.forget(objectKey(job));
          loop.enqueue(objectKey(job));
        },
      });
      pods.addEventHandler({
        onAdd: (pod) => {
          const key = controllingJobKey(pod);
          if (key === undefined) return;
          if (pod.metadata.deletionTimestamp !== undefined) expectations.deletionObserved(key, pod.metadata.uid ?? '');
          else expectations.creationObserved(key);
          loop.enqueue(key);
        },
        onUpdate: (before, after) => {
          const oldKey = controllingJobKey(before);
          const key = controllingJobKey(after);
          if (key !== undefined && before.metadata.deletionTimestamp === undefined && after.metadata.deletionTimestamp !== undefined) {
            expectations.deletionObserved(key, after.metadata.uid ?? '');
          }
          if (oldKey !== undefined && oldKey !== key) loop.enqueue(oldKey);
          if (key !== undefined) loop.enqueue(key);
        },
        onDelete: (pod) => {
          const key = controllingJobKey(pod);
          if (key === undefined) return;
          expectations.deletionObserved(key, pod.metadata.uid ?? '');
          loop.enqueue(key);
        },
      });
    },
  };
}

export const jobController: ControllerDefinition = newJobController();
