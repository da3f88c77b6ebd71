/**
 * The sync of one Job (after upstream's job controller syncJob): count the
 * pods that finished through status.uncountedTerminatedPods and the
 * batch.kubernetes.io/job-tracking finalizer (record the uid, remove the
 * finalizer, then move the uid into succeeded/failed — so no pod is counted
 * twice or lost, whatever crashes in between); decide whether the Job has
 * met its success criteria or must fail (podFailurePolicy FailJob,
 * backoffLimit, activeDeadlineSeconds), which first sets SuccessCriteriaMet
 * or FailureTarget and terminates the active pods, then Complete or Failed
 * once no pod is left running; otherwise keep the wanted number of active
 * pods (NonIndexed or Indexed), behind expectations and the pod-failure
 * backoff, and handle suspend/resume.
 */
import type { JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX, splitObjectKey, type Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { JOBS, PODS } from '../../client/rest/resources.js';
import { deepCopy, formatTime, jsonEqual } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { ReconcileResult } from '../reconcile-loop.js';
import { nextBackoffRecord, remainingBackoffMs, type BackoffOptions, type BackoffRecord } from './backoff.js';
import type { Expectations } from './expectations.js';
import {
  completionIndex,
  conditionOf,
  formatIndexes,
  hasTrackingFinalizer,
  isActive,
  isIndexed,
  isJobFinished,
  isPodFailed,
  isPodReady,

  isTerminating,
  JOB_TRACKING_FINALIZER,
  parseIndexes,
  podFinishTime,
  type JobObject,
  type PodObject,
} from './job-model.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { podForJob } from './pod-template.js';

/** Upstream's cap on pods created or deleted in one sync. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

export interface JobSyncerDeps {
  readonly client: Client;
  readonly jobs: Indexer<JobObject>;
  /** Must have the CONTROLLER_UID_INDEX (every informer has it). */
  readonly pods: Indexer<PodObject>;
  readonly recorder: EventRecorder;
  readonly expectations: Expectations;
  readonly now?: () => number;
  readonly backoff?: BackoffOptions;
}

interface Finish {
  readonly type: 'FailureTarget' | 'SuccessCriteriaMet';
  readonly reason: string;
  readonly message: string;
}

const condition = (type: string, status: 'True' | 'False', reason: string, message: string, now: string): JobCondition => ({
  type,
  status,
  reason,
  message,
  lastProbeTime: now,
  lastTransitionTime: now,
});

/** Set a condition (replacing one of the same type when its status, reason or message changed); returns whether it changed. */
function setCondition(status: JobStatus, next: JobCondition): boolean {
  const conditions = status.conditions ?? [];
  const i = conditions.findIndex((c) => c.type === next.type);
  if (i >= 0) {
    const old = conditions[i]!;
    if (old.status === next.status && old.reason === next.reason && old.message === next.message) return false;
    conditions[i] = next;
  } else conditions.push(next);
  status.conditions = conditions;
  return true;
}

/** Active pods in the order to delete them: not ready first, then the youngest. */
function deletionOrder(pods: readonly PodObject[]): PodObject[] {
  return [...pods].sort((a, b) => {
    const ra = isPodReady(a) ? 1 : 0;
    const rb = isPodReady(b) ? 1 : 0;
    if (ra !== rb) return ra - rb;
    return (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '');
  });
}

export function newJobSyncer(deps: JobSyncerDeps): (key: string) => Promise<ReconcileResult | void> {
  const now = deps.now ?? Date.now;
  const jobsClient = deps.client.resource<JobObject>(JOBS);
  const podsClient = deps.client.resource<PodObject>(PODS);
  const backoffs = new Map<string, BackoffRecord>();

  const removeFinalizer = async (pod: PodObject): Promise<boolean> => {
    const finalizers = pod.metadata.finalizers ?? [];
    const index = finalizers.indexOf(JOB_TRACKING_FINALIZER);
    if (index < 0) return true;
    try {
      await podsClient.patch(
        pod.metadata.name ?? '',
        'json',
        [
          { op: 'test', path: `/metadata/finalizers/${index}`, value: JOB_TRACKING_FINALIZER },
          { op: 'remove', path: `/metadata/finalizers/${index}` },
        ],
        { namespace: pod.metadata.namespace ?? '' },
      );
      return true;
    } catch (e: unknown) {
      if (isNotFound(e)) return true;
      throw e;
    }
  };

  const deletePods = async (key: string, job: JobObject, pods: readonly PodObject[]): Promise<void> => {
    if (pods.length === 0) return;
    deps.expectations.expectDeletions(
      key,
      pods.map((p) => p.metadata.uid ?? ''),
    );
    const errors: unknown[] = [];
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await podsClient.delete(pod.metadata.name ?? '', { namespace: pod.metadata.namespace ?? '' });
          deps.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
        } catch (e: unknown) {
          deps.expectations.deletionObserved(key, pod.metadata.uid ?? '');
          if (isNotFound(e)) return;
          deps.recorder.event(job, 'Warning', 'FailedDelete', `Error deleting: ${e instanceof Error ? e.message : String(e)}`);
          errors.push(e);
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  };

  /** Create pods in slow-start batches (1, 2, 4, …), stopping at the first failing batch. */
  const createPods = async (key: string, job: JobObject, indexes: readonly (number | undefined)[]): Promise<void> => {
    deps.expectations.expectCreations(key, indexes.length);
    let next = 0;
    let batch = 1;
    while (next < indexes.length) {
      const chunk = indexes.slice(next, next + batch);
      next += chunk.length;
      const results = await Promise.allSettled(
        chunk.map(async (index) => {
          const created = await podsClient.create(podForJob(job, index), { namespace: job.metadata.namespace ?? '' });
          deps.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
        }),
      );
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length > 0) {
        deps.expectations.lowerCreations(key, failed.length + (indexes.length - next));
        const reason: unknown = failed[0]!.reason;
        deps.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${reason instanceof Error ? reason.message : String(reason)}`);
        throw reason;
      }
      batch *= 2;
    }
  };

  return async (key) => {
    const cached = deps.jobs.get(key);
    if (cached === undefined) {
      deps.expectations.forget(key);
      backoffs.delete(key);
      // Its pods keep the tracking finalizer: let go of them, or the garbage collector's deletes would never finish.
      const { namespace, name } = splitObjectKey(key);
      const orphans = deps.pods.byIndex(NAMESPACE_INDEX, namespace).filter((pod) => hasTrackingFinalizer(pod) && controllerJobName(pod) === name);
      for (const pod of orphans) await removeFinalizer(pod);
      return;
    }
    const job = deepCopy(cached);
    const pods = deps.pods.byIndex(CONTROLLER_UID_INDEX, job.metadata.uid ?? '');
    if (isJobFinished(job)) {
      // Let go of the pods (a crash may have left finalizers behind).
      for (const pod of pods.filter(hasTrackingFinalizer)) await removeFinalizer(pod);
      return;
    }
    const nowMs = now();
    const nowText = formatTime(new Date(nowMs));
    const spec = job.spec ?? { template: {} };
    const indexed = isIndexed(job);
    const completions = spec.completions ?? undefined;
    const parallelism = spec.parallelism ?? 1;
    const backoffLimit = spec.backoffLimit ?? 6;
    const suspended = spec.suspend === true;
    const original = deepCopy(job.status ?? {});
    const status: JobStatus = deepCopy(original);
    let result: ReconcileResult | undefined;
    /** Events about status changes, recorded once the status is written (a failed write retries and must not repeat them). */
    const statusEvents: [type: 'Normal' | 'Warning', reason: string, message: string][] = [];
    const requeueAfter = (ms: number): void => {
      if (result?.requeueAfterMs === undefined || ms < result.requeueAfterMs) result = { requeueAfterMs: Math.max(1, ms) };
    };

    // 1. Newly finished pods go into uncountedTerminatedPods.
    const uncountedSucceeded = new Set(status.uncountedTerminatedPods?.succeeded ?? []);
    const uncountedFailed = new Set(status.uncountedTerminatedPods?.failed ?? []);
    const succeededIndexes = parseIndexes(status.completedIndexes ?? undefined);
    const releaseUncounted: PodObject[] = [];
    let policyFailure: string | undefined;
    let newSucceeded = 0;
    const failureTimes: number[] = [];
    for (const pod of pods) {
      if (!hasTrackingFinalizer(pod)) continue;
      const uid = pod.metadata.uid ?? '';
      if (uncountedSucceeded.has(uid) || uncountedFailed.has(uid)) continue;
      if (pod.status?.phase === 'Succeeded') {
        const ix = completionIndex(pod);
        if (indexed && (ix === undefined || ix >= (completions ?? 0) || succeededIndexes.has(ix))) releaseUncounted.push(pod);
        else {
          if (indexed) succeededIndexes.add(ix!);
          uncountedSucceeded.add(uid);
          newSucceeded++;
        }
      } else if (isPodFailed(pod, job)) {
        const match = pod.status?.phase === 'Failed' ? matchPodFailurePolicy(job, pod) : undefined;
        if (match?.action === 'Ignore') {
          releaseUncounted.push(pod);
          continue;
        }
        if (match?.action === 'FailJob') policyFailure ??= match.message;
        uncountedFailed.add(uid);
        failureTimes.push(podFinishTime(pod) ?? nowMs);
      }
    }
    backoffs.set(key, nextBackoffRecord(backoffs.get(key) ?? { failuresAfterLastSuccess: 0, lastFailureTime: undefined }, { succeeded: newSucceeded, failureTimes }));

    const active = pods.filter(isActive);
    const terminating = pods.filter(isTerminating);
    const succeeded = (status.succeeded ?? 0) + uncountedSucceeded.size;
    const failed = (status.failed ?? 0) + uncountedFailed.size;

    // 2. Success or failure?
    let finish: Finish | undefined;
    const existingTarget = conditionOf(job, 'FailureTarget') ?? conditionOf(job, 'SuccessCriteriaMet');
    if (existingTarget !== undefined) {
      finish = { type: existingTarget.type as Finish['type'], reason: existingTarget.reason ?? '', message: existingTarget.message ?? '' };
    } else if (policyFailure !== undefined) {
      finish = { type: 'FailureTarget', reason: 'PodFailurePolicy', message: policyFailure };
    } else if (failed > backoffLimit) {
      finish = { type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    } else if (!suspended && pastActiveDeadline(job, status, nowMs)) {
      finish = { type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    } else {
      const done =
        completions === undefined
          ? succeeded > 0 && active.length === 0
          : indexed
            ? [...succeededIndexes].filter((i) => i < completions).length >= completions
            : succeeded >= completions;
      if (done) finish = { type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
    }
    if (finish !== undefined) setCondition(status, condition(finish.type, 'True', finish.reason, finish.message, nowText));

    // 3. Suspend and resume; the start time.
    if (finish === undefined) {
      if (suspended) {
        if (conditionOf(job, 'Suspended') === undefined) {
          setCondition(status, condition('Suspended', 'True', 'JobSuspended', 'Job suspended', nowText));
          statusEvents.push(['Normal', 'Suspended', 'Job suspended']);
        }
      } else {
        if (conditionOf(job, 'Suspended') !== undefined) {
          setCondition(status, condition('Suspended', 'False', 'JobResumed', 'Job resumed', nowText));
          statusEvents.push(['Normal', 'Resumed', 'Job resumed']);
          status.startTime = nowText;
        }
        status.startTime ??= nowText;
      }
    }

    // 4. Pods: terminate them all when finishing or suspended, else keep the wanted number active.
    const satisfied = deps.expectations.satisfied(key);
    if (finish !== undefined || suspended) {
      if (satisfied) await deletePods(key, job, active.slice(0, MAX_POD_CREATE_DELETE_PER_SYNC));
    } else if (satisfied) {
      const remaining = remainingBackoffMs(backoffs.get(key)!, nowMs, deps.backoff);
      if (indexed) {
        const plan = planIndexed(active, succeededIndexes, completions ?? 0, parallelism);
        await deletePods(key, job, plan.toDelete.slice(0, MAX_POD_CREATE_DELETE_PER_SYNC));
        if (plan.toCreate.length > 0) {
          if (remaining > 0) requeueAfter(remaining);
          else await createPods(key, job, plan.toCreate.slice(0, MAX_POD_CREATE_DELETE_PER_SYNC));
        }
      } else {
        const want = completions === undefined ? (succeeded > 0 ? 0 : parallelism) : Math.max(0, Math.min(completions - succeeded, parallelism));
        if (active.length > want) await deletePods(key, job, deletionOrder(active).slice(0, Math.min(active.length - want, MAX_POD_CREATE_DELETE_PER_SYNC)));
        else if (active.length < want) {
          if (remaining > 0) requeueAfter(remaining);
          else await createPods(key, job, new Array<undefined>(Math.min(want - active.length, MAX_POD_CREATE_DELETE_PER_SYNC)).fill(undefined));
        }
      }
      const deadline = activeDeadlineAt(job, status);
      if (deadline !== undefined) requeueAfter(deadline - nowMs);
    }

    // 5. Count through the finalizers: record the uids, remove the finalizers, then move the uids into the counters.
    status.active = active.length;
    status.ready = active.filter(isPodReady).length;
    status.terminating = terminating.length;
    if (indexed) status.completedIndexes = formatIndexes([...succeededIndexes].filter((i) => i < (completions ?? 0)));
    status.uncountedTerminatedPods = { succeeded: [...uncountedSucceeded], failed: [...uncountedFailed] };
    let current = job;
    const write = async (): Promise<void> => {
      const next = deepCopy(current);
      next.status = normalizeStatus(status);
      if (jsonEqual(normalizeStatus(current.status ?? {}), next.status)) return;
      current = await jobsClient.updateStatus(next, { namespace: job.metadata.namespace ?? '' });
    };
    const pendingUids = new Set([...uncountedSucceeded, ...uncountedFailed]);
    const recorded = [...(original.uncountedTerminatedPods?.succeeded ?? []), ...(original.uncountedTerminatedPods?.failed ?? [])];
    if (pendingUids.size > recorded.length) await write();
    const podByUid = new Map(pods.map((p) => [p.metadata.uid ?? '', p]));
    const released = new Set<string>();
    for (const uid of pendingUids) {
      const pod = podByUid.get(uid);
      if (pod === undefined || (await removeFinalizer(pod))) released.add(uid);
    }
    for (const pod of releaseUncounted) await removeFinalizer(pod);
    for (const uid of released) {
      if (uncountedSucceeded.delete(uid)) status.succeeded = (status.succeeded ?? 0) + 1;
      else if (uncountedFailed.delete(uid)) status.failed = (status.failed ?? 0) + 1;
    }
    status.uncountedTerminatedPods = { succeeded: [...uncountedSucceeded], failed: [...uncountedFailed] };

    // 6. The terminal condition, once nothing runs and everything is counted.
    const settled = uncountedSucceeded.size === 0 && uncountedFailed.size === 0;
    if (finish !== undefined && active.length === 0 && terminating.length === 0 && settled) {
      if (finish.type === 'SuccessCriteriaMet') {
        setCondition(status, condition('Complete', 'True', finish.reason, finish.message, nowText));
        status.completionTime = nowText;
        statusEvents.push(['Normal', 'Completed', 'Job completed']);
      } else {
        setCondition(status, condition('Failed', 'True', finish.reason, finish.message, nowText));
        statusEvents.push(['Warning', finish.reason, finish.message]);
      }
    }
    await write();
    for (const [type, reason, message] of statusEvents) deps.recorder.event(job, type, reason, message);
    return result;
  };
}

/** The name of the Job that controls a pod, if any. */
function controllerJobName(pod: PodObject): string | undefined {
  const ref = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  return ref !== undefined && ref.kind === 'Job' && ref.apiVersion.startsWith('batch/') ? ref.name : undefined;
}

/** Status with empty uncounted lists dropped, as Go's omitempty writes it. */
function normalizeStatus(status: JobStatus): JobStatus {
  const copy = deepCopy(status);
  const u = copy.uncountedTerminatedPods;
  if (u !== undefined) {
    if ((u.succeeded ?? []).length === 0) delete u.succeeded;
    if ((u.failed ?? []).length === 0) delete u.failed;
  }
  return copy;
}

function activeDeadlineAt(job: JobObject, status: JobStatus): number | undefined {
  const seconds = job.spec?.activeDeadlineSeconds;
  if (seconds === undefined || seconds === null || status.startTime === undefined) return undefined;
  return Date.parse(status.startTime) + seconds * 1000;
}

function pastActiveDeadline(job: JobObject, status: JobStatus, nowMs: number): boolean {
  const at = activeDeadlineAt(job, status);
  return at !== undefined && nowMs >= at;
}

/**
 * Indexed Jobs: which active pods to delete (invalid or out-of-range index,
 * an index already succeeded, a duplicate of an index, or above parallelism)
 * and which missing indexes to create (lowest first, up to parallelism).
 */
export function planIndexed(
  active: readonly PodObject[],
  succeeded: ReadonlySet<number>,
  completions: number,
  parallelism: number,
): { toDelete: PodObject[]; toCreate: number[] } {
  const toDelete: PodObject[] = [];
  const byIndex = new Map<number, PodObject>();
  for (const pod of active) {
    const ix = completionIndex(pod);
    if (ix === undefined || ix >= completions || succeeded.has(ix) || byIndex.has(ix)) toDelete.push(pod);
    else byIndex.set(ix, pod);
  }
  const kept = [...byIndex.entries()].sort(([a], [b]) => a - b);
  while (kept.length > parallelism) toDelete.push(kept.pop()![1]);
  const toCreate: number[] = [];
  for (let ix = 0; ix < completions && kept.length + toCreate.length < parallelism; ix++) {
    if (!succeeded.has(ix) && !byIndex.has(ix)) toCreate.push(ix);
  }
  return { toDelete, toCreate };
}

