/**
 * Upstream's defaulting of batch/v1 kinds (pkg/apis/batch/v1 defaults.go,
 * with the feature gates a 1.33 cluster has on: JobPodReplacementPolicy,
 * JobBackoffLimitPerIndex), and the selector a Job gets generated when the
 * client does not manage its own (pkg/registry/batch/job strategy.go).
 */
import type { CronJob, Job, JobSpec, JobTemplateSpec } from 'kubernetes-types/batch/v1.js';
import { defaultPodTemplateSpec } from '../../core/v1/defaults.js';

/** The label a Job's pods carry with its uid (and the selector that picks them). */
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The label a Job's pods carry with its name. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

const MAX_INT32 = 2147483647;

export function defaultJob(job: Job): void {
  job.spec ??= { template: {} };
  defaultJobSpec(job.spec);
  const labels = job.spec.template?.metadata?.labels;
  if (labels !== undefined && labels !== null && Object.keys(job.metadata?.labels ?? {}).length === 0) {
    job.metadata ??= {};
    job.metadata.labels = { ...labels };
  }
}

/** The spec defaults, shared by Jobs and the job templates of CronJobs. */
export function defaultJobSpec(spec: JobSpec): void {
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  if (spec.backoffLimit === undefined || spec.backoffLimit === null) {
    spec.backoffLimit = spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null ? MAX_INT32 : 6;
  }
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule.onPodConditions ?? []) if (!pattern.status) pattern.status = 'True';
  }
  spec.podReplacementPolicy ??= spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
  spec.template ??= {};
  defaultPodTemplateSpec(spec.template);
}

/**
 * A CronJob's job template: only the pod template inside gets defaults
 * (upstream's Job defaults are for Job objects; the Jobs a CronJob creates get
 * them then), and `metadata: {creationTimestamp: null}` as upstream serializes it.
 */
function defaultJobTemplate(template: JobTemplateSpec): void {
  template.metadata ??= {};
  const meta = template.metadata as Record<string, unknown>;
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  template.spec ??= { template: {} };
  template.spec.template ??= {};
  defaultPodTemplateSpec(template.spec.template);
}

export function defaultCronJob(cronJob: CronJob): void {
  const spec = (cronJob.spec ??= { schedule: '', jobTemplate: {} });
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  spec.jobTemplate ??= {};
  defaultJobTemplate(spec.jobTemplate);
}

/**
 * Upstream's generateSelector: unless the client manages the selector
 * (`spec.manualSelector: true`), the pods get the job's name and uid as
 * labels (both the `batch.kubernetes.io/` ones and the legacy ones) and the
 * selector picks the uid. Runs at creation, once the uid is known.
 */
export function generateJobSelector(job: Job): void {
  const spec = (job.spec ??= { template: {} });
  if (spec.manualSelector === true) return;
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  const template = (spec.template ??= {});
  template.metadata ??= {};
  const labels = (template.metadata.labels ??= {});
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  spec.selector ??= {};
  spec.selector.matchLabels ??= {};
  if (!(CONTROLLER_UID_LABEL in spec.selector.matchLabels)) spec.selector.matchLabels[CONTROLLER_UID_LABEL] = uid;
}
