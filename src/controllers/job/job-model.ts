/**
 * The vocabulary of the job controller: a Job's conditions, its pods'
 * states (active, terminating, succeeded, failed), completion indexes, and
 * the keys, labels and finalizer upstream uses.
 */
import type { Job, JobCondition } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';

export type JobObject = Job & KubeObject;
export type PodObject = Pod & KubeObject;

/** Upstream's batch.kubernetes.io/job-tracking: a pod keeps it until the controller has counted it in the Job's status. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const JOB_COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
/** The same index as a label (upstream's PodIndexLabel). */
export const JOB_COMPLETION_INDEX_LABEL = 'batch.kubernetes.io/job-completion-index';
export const JOB_COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

export const conditionOf = (job: JobObject, type: string): JobCondition | undefined =>
  (job.status?.conditions ?? []).find((c) => c.type === type && c.status === 'True');

/** Complete or Failed: nothing more to do but let go of the pods. */
export const isJobFinished = (job: JobObject): boolean => conditionOf(job, 'Complete') !== undefined || conditionOf(job, 'Failed') !== undefined;

export const isTerminal = (pod: PodObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
export const hasTrackingFinalizer = (pod: PodObject): boolean => (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
/** Running or pending and not being deleted. */
export const isActive = (pod: PodObject): boolean => !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined;
/** Being deleted but not yet terminal. */
export const isTerminating = (pod: PodObject): boolean => !isTerminal(pod) && pod.metadata.deletionTimestamp !== undefined;
export const isPodReady = (pod: PodObject): boolean => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * Whether a pod counts as failed (upstream's isPodFailed): Failed, or — when
 * the Job replaces terminating pods (no pod failure policy, the default
 * podReplacementPolicy) — deleted before it succeeded.
 */
export function isPodFailed(pod: PodObject, job: JobObject): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return pod.metadata.deletionTimestamp !== undefined && pod.status?.phase !== 'Succeeded';
}

export const onlyReplaceFailedPods = (job: JobObject): boolean => job.spec?.podReplacementPolicy === 'Failed' || job.spec?.podFailurePolicy !== undefined;

export const isIndexed = (job: JobObject): boolean => job.spec?.completionMode === 'Indexed';

/** A pod's completion index, or undefined when absent or invalid. */
export function completionIndex(pod: PodObject): number | undefined {
  const text = pod.metadata.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] ?? pod.metadata.labels?.[JOB_COMPLETION_INDEX_LABEL];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number.parseInt(text, 10);
}

/** Parse status.completedIndexes ("1,3-5,7"). */
export function parseIndexes(text: string | undefined): Set<number> {
  const set = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    if (part === '') continue;
    const [a, b] = part.split('-');
    const from = Number.parseInt(a ?? '', 10);
    const to = b === undefined ? from : Number.parseInt(b, 10);
    if (Number.isNaN(from) || Number.isNaN(to)) continue;
    for (let i = from; i <= to; i++) set.add(i);
  }
  return set;
}

/** Format indexes as upstream: sorted, consecutive runs as ranges ("1,3-5,7"). */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The time a pod finished: its latest container termination, else its Ready condition's last change, else undefined. */
export function podFinishTime(pod: PodObject): number | undefined {
  let latest: number | undefined;
  for (const status of pod.status?.containerStatuses ?? []) {
    const finished = status.state?.terminated?.finishedAt;
    if (finished !== undefined) {
      const t = Date.parse(finished);
      if (!Number.isNaN(t)) latest = latest === undefined ? t : Math.max(latest, t);
    }
  }
  if (latest !== undefined) return latest;
  const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready')?.lastTransitionTime;
  const t = ready === undefined ? NaN : Date.parse(ready);
  return Number.isNaN(t) ? undefined : t;
}
