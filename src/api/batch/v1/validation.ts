/**
 * Validation of batch/v1 kinds with upstream's messages
 * (pkg/apis/batch/validation): Jobs (the generated selector, the spec, what
 * may change on update) and CronJobs (schedule, time zone, concurrency
 * policy, history limits, job template).
 */
import type { CronJob, Job, JobSpec, JobStatus } from 'kubernetes-types/batch/v1.js';
import { FieldPath, invalid, notSupported, required, RawValue, type FieldError } from '../../../machinery/field-errors.js';
import { labelSelectorFromObject } from '../../../machinery/selectors/label-selector.js';
import { semanticDeepEqual } from '../../../machinery/validation/immutable.js';
import { validateLabelSelector } from '../../../machinery/validation/labels.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/messages.js';
import { isDNS1123Label, nameIsDNSSubdomain } from '../../../machinery/validation/names.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMeta } from '../../../machinery/validation/object-meta.js';
import { validateNonnegativeField } from '../../../machinery/validation/values.js';
import { goLabelSelector, goStringMap } from '../../core/v1/go-values.js';
import { validatePodTemplateSpec } from '../../core/v1/validation.js';
import { isKnownTimeZone, parseCronSchedule } from './cron-schedule.js';
import { CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL } from './defaults.js';
import { deepCopy } from '../../../machinery/meta.js';

const METADATA = FieldPath.root('metadata');
const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');
const MAX_PARALLELISM_FOR_INDEXED_JOB = 100000;
const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const POD_REPLACEMENT_POLICIES = ['TerminatingOrFailed', 'Failed'];

const meta = (o: { metadata?: unknown }): ObjectMeta => (o.metadata ?? {}) as ObjectMeta;
const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;
const goStruct = (type: string, value: unknown): RawValue => new RawValue(`${type}${JSON.stringify(value ?? {})}`);

// ---- Job

/**
 * Upstream's validateGeneratedSelector: a generated selector picks this job's
 * uid, and the template's uid labels, when present, carry it.
 */
function validateGeneratedSelector(job: Job, requirePrefixedLabels: boolean): FieldError[] {
  const spec = job.spec;
  if (spec?.manualSelector === true) return [];
  const errs: FieldError[] = [];
  const uid = job.metadata?.uid ?? '';
  const labels = spec?.template?.metadata?.labels;
  const labelsPath = SPEC.child('template', 'metadata', 'labels');
  if (uid === '') errs.push(required(METADATA.child('uid'), ''));
  const uidLabels = requirePrefixedLabels ? [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL] : [LEGACY_CONTROLLER_UID_LABEL];
  for (const key of uidLabels) {
    const value = labels?.[key];
    if (value !== undefined && value !== uid) errs.push(invalid(labelsPath.key(key), value, `must be '${uid}'`));
  }
  const selector = spec?.selector;
  if (!isSet(selector)) return errs;
  const expected = { [requirePrefixedLabels ? CONTROLLER_UID_LABEL : LEGACY_CONTROLLER_UID_LABEL]: uid };
  let matches = false;
  try {
    matches = labelSelectorFromObject(selector).matches(expected);
  } catch {
    matches = false;
  }
  if (!matches) errs.push(invalid(SPEC.child('selector'), goLabelSelector(selector), '`selector` not auto-generated'));
  return errs;
}

function validateJobSpecFields(spec: JobSpec | undefined, path: FieldPath): FieldError[] {
  const s = spec ?? ({} as JobSpec);
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'] as const) {
    const v = s[f];
    if (isSet(v)) errs.push(...validateNonnegativeField(v, path.child(f)));
  }
  if (isSet(s.backoffLimitPerIndex)) {
    errs.push(...validateNonnegativeField(s.backoffLimitPerIndex, path.child('backoffLimitPerIndex')));
    if (s.completionMode !== 'Indexed') {
      errs.push(invalid(path.child('backoffLimitPerIndex'), s.backoffLimitPerIndex, 'requires indexed completion mode'));
    }
  }
  if (isSet(s.maxFailedIndexes)) {
    errs.push(...validateNonnegativeField(s.maxFailedIndexes, path.child('maxFailedIndexes')));
    if (!isSet(s.backoffLimitPerIndex)) errs.push(required(path.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (isSet(s.completionMode)) {
    if (!COMPLETION_MODES.includes(s.completionMode)) errs.push(notSupported(path.child('completionMode'), s.completionMode, COMPLETION_MODES));
    if (s.completionMode === 'Indexed') {
      if (!isSet(s.completions)) errs.push(required(path.child('completions'), 'when completion mode is Indexed'));
      if (isSet(s.parallelism) && s.parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
        errs.push(invalid(path.child('parallelism'), s.parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`));
      }
    }
  }
  if (isSet(s.podReplacementPolicy)) {
    if (!POD_REPLACEMENT_POLICIES.includes(s.podReplacementPolicy)) {
      errs.push(notSupported(path.child('podReplacementPolicy'), s.podReplacementPolicy, POD_REPLACEMENT_POLICIES));
    } else if (s.podReplacementPolicy === 'TerminatingOrFailed' && isSet(s.podFailurePolicy)) {
      errs.push(notSupported(path.child('podReplacementPolicy'), s.podReplacementPolicy, ['Failed']));
    }
  }
  const template = path.child('template');
  errs.push(...validatePodTemplateSpec(s.template, template));
  const restartPolicy = s.template?.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push(notSupported(template.child('spec', 'restartPolicy'), restartPolicy, ['OnFailure', 'Never']));
  } else if (restartPolicy !== 'Never' && isSet(s.podFailurePolicy)) {
    errs.push(invalid(template.child('spec', 'restartPolicy'), restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

/** Upstream's ValidateJobSpec: the fields, a selector, and a template the selector matches. */
function validateJobSpec(spec: JobSpec | undefined, path: FieldPath): FieldError[] {
  const errs = validateJobSpecFields(spec, path);
  const selector = spec?.selector;
  if (!isSet(selector)) errs.push(required(path.child('selector'), ''));
  else errs.push(...validateLabelSelector(selector, {}, path.child('selector')));
  try {
    const s = labelSelectorFromObject(selector);
    if (isSet(selector)) {
      if (s.empty()) errs.push(required(path.child('selector'), ''));
      const labels = spec?.template?.metadata?.labels;
      if (!s.matches(labels)) errs.push(invalid(path.child('template', 'metadata', 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
    }
  } catch {
    // An unconvertible selector was reported by validateLabelSelector.
  }
  return errs;
}

/** Upstream's ValidateJob (create). */
export function validateJob(job: Job, options: { requirePrefixedLabels?: boolean } = {}): FieldError[] {
  const errs = validateObjectMeta(meta(job), { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errs.push(...validateGeneratedSelector(job, options.requirePrefixedLabels ?? true));
  errs.push(...validateJobSpec(job.spec, SPEC));
  const spec = job.spec;
  if (spec?.completionMode === 'Indexed' && isSet(spec.completions) && spec.completions > 0) {
    const hostname = `${job.metadata?.name ?? ''}-${spec.completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(invalid(METADATA.child('name'), job.metadata?.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

/**
 * Upstream's ValidateJobUpdate: selector, completions (but for elastic
 * indexed jobs), completion mode, pod failure policy and the pod template are
 * immutable, except the scheduling directives of a suspended job that never
 * started.
 */
export function validateJobUpdate(job: Job, old: Job): FieldError[] {
  const oldLabels = old.spec?.template?.metadata?.labels ?? {};
  const requirePrefixed = JOB_NAME_LABEL in oldLabels && CONTROLLER_UID_LABEL in oldLabels;
  const errs = validateJob(job, { requirePrefixedLabels: requirePrefixed });
  errs.push(...validateObjectMetaUpdate(meta(job), meta(old)));
  const spec = job.spec ?? ({} as JobSpec);
  const oldSpec = old.spec ?? ({} as JobSpec);
  const immutable = (field: string, next: unknown, prev: unknown, shown: unknown = next): void => {
    if (!semanticDeepEqual(next, prev)) errs.push(invalid(SPEC.child(field), shown ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  };
  const elastic = spec.completionMode === 'Indexed' && oldSpec.completionMode === 'Indexed' && spec.completions === spec.parallelism && oldSpec.completions === oldSpec.parallelism;
  if (!elastic) immutable('completions', spec.completions, oldSpec.completions);
  immutable('selector', spec.selector, oldSpec.selector, goLabelSelector(spec.selector));
  // Scheduling directives of a suspended job that never ran may change; the rest of the template may not.
  const suspendedNotStarted = oldSpec.suspend === true && !isSet(old.status?.startTime);
  const template = deepCopy(spec.template ?? {});
  if (suspendedNotStarted) {
    const oldTemplate = oldSpec.template ?? {};
    template.metadata = { ...(template.metadata ?? {}) };
    if (oldTemplate.metadata?.labels !== undefined) template.metadata.labels = oldTemplate.metadata.labels;
    else delete template.metadata.labels;
    if (oldTemplate.metadata?.annotations !== undefined) template.metadata.annotations = oldTemplate.metadata.annotations;
    else delete template.metadata.annotations;
    if (template.spec !== undefined) {
      for (const key of ['nodeSelector', 'tolerations', 'schedulingGates', 'affinity'] as const) {
        const value = oldTemplate.spec?.[key];
        if (value === undefined) delete template.spec[key];
        else (template.spec as unknown as Record<string, unknown>)[key] = value;
      }
    }
  }
  if (!semanticDeepEqual(template, oldSpec.template)) errs.push(invalid(SPEC.child('template'), goStruct('core.PodTemplateSpec', spec.template), FIELD_IMMUTABLE_ERROR_MSG));
  immutable('completionMode', spec.completionMode, oldSpec.completionMode);
  immutable('podFailurePolicy', spec.podFailurePolicy, oldSpec.podFailurePolicy, isSet(spec.podFailurePolicy) ? goStruct('batch.PodFailurePolicy', spec.podFailurePolicy) : null);
  immutable('backoffLimitPerIndex', spec.backoffLimitPerIndex, oldSpec.backoffLimitPerIndex);
  immutable('managedBy', spec.managedBy, oldSpec.managedBy);
  immutable('successPolicy', spec.successPolicy, oldSpec.successPolicy, isSet(spec.successPolicy) ? goStruct('batch.SuccessPolicy', spec.successPolicy) : null);
  return errs;
}

/** Upstream's ValidateJobUpdateStatus (the counters and their bounds). */
export function validateJobStatusUpdate(job: Job, old: Job): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(job), meta(old));
  const s: JobStatus = job.status ?? {};
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating'] as const) {
    const v = (s as Record<string, unknown>)[f];
    if (typeof v === 'number') errs.push(...validateNonnegativeField(v, STATUS.child(f)));
  }
  const uncounted = s.uncountedTerminatedPods;
  if (isSet(uncounted)) {
    const seen = new Set<string>();
    for (const [field, uids] of [['succeeded', uncounted.succeeded], ['failed', uncounted.failed]] as const) {
      (uids ?? []).forEach((uid, i) => {
        const p = STATUS.child('uncountedTerminatedPods', field).index(i);
        if (uid === '') errs.push(invalid(p, uid, 'must not be empty'));
        else if (seen.has(uid)) errs.push({ type: 'FieldValueDuplicate', field: String(p), value: uid, detail: '' });
        seen.add(uid);
      });
    }
  }
  return errs;
}

// ---- CronJob

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(timeZone: string | undefined | null, path: FieldPath): FieldError[] {
  if (!isSet(timeZone)) return [];
  if (timeZone === '') return [invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part)) {
      return [invalid(path, timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const errs: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') errs.push(invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  if (!isKnownTimeZone(timeZone)) errs.push(invalid(path, timeZone, `unknown time zone ${timeZone}`));
  return errs;
}

function validateCronJobSpec(cronJob: CronJob, allowTZInSchedule: boolean): FieldError[] {
  const spec = cronJob.spec;
  const errs: FieldError[] = [];
  const schedule = spec?.schedule ?? '';
  if (schedule === '') errs.push(required(SPEC.child('schedule'), ''));
  else {
    const error = parseCronSchedule(schedule);
    if (error !== undefined) errs.push(invalid(SPEC.child('schedule'), schedule, error));
    if (schedule.includes('TZ')) {
      if (allowTZInSchedule && isSet(spec?.timeZone)) {
        errs.push(invalid(SPEC.child('schedule'), schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
      } else if (!allowTZInSchedule) {
        errs.push(invalid(SPEC.child('schedule'), schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
      }
    }
  }
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'] as const) {
    const v = spec?.[f];
    if (isSet(v)) errs.push(...validateNonnegativeField(v, SPEC.child(f)));
  }
  const policy = spec?.concurrencyPolicy ?? '';
  if (policy === '') errs.push(required(SPEC.child('concurrencyPolicy'), ''));
  else if (!CONCURRENCY_POLICIES.includes(policy)) errs.push(notSupported(SPEC.child('concurrencyPolicy'), policy, CONCURRENCY_POLICIES));
  // The job template: its metadata's labels and annotations, and a job spec without a selector of its own.
  const jobTemplate = SPEC.child('jobTemplate');
  errs.push(...validateJobSpecFields(spec?.jobTemplate?.spec, jobTemplate.child('spec')));
  if (isSet(spec?.jobTemplate?.spec?.selector)) {
    errs.push(...validateLabelSelector(spec.jobTemplate.spec.selector, {}, jobTemplate.child('spec', 'selector')));
  }
  if (spec?.jobTemplate?.spec?.manualSelector === true) {
    errs.push(notSupported(jobTemplate.child('spec', 'manualSelector'), true, ['nil', 'false']));
  }
  errs.push(...validateTimeZone(spec?.timeZone, SPEC.child('timeZone')));
  return errs;
}

/** Upstream's ValidateCronJobCreate: names leave room for the 11-character suffix of the Jobs. */
export function validateCronJob(cronJob: CronJob): FieldError[] {
  const errs = validateObjectMeta(meta(cronJob), { namespaced: true, nameValidator: nameIsDNSSubdomain });
  errs.push(...validateCronJobSpec(cronJob, false));
  const name = cronJob.metadata?.name ?? '';
  if (name.length > 52) errs.push(invalid(METADATA.child('name'), name, 'must be no more than 52 characters'));
  return errs;
}

/** Upstream's ValidateCronJobUpdate: TZ in the schedule stays allowed if it was already there. */
export function validateCronJobUpdate(cronJob: CronJob, old: CronJob): FieldError[] {
  const errs = validateObjectMetaUpdate(meta(cronJob), meta(old));
  const allowTZ = (old.spec?.schedule ?? '').includes('TZ');
  errs.push(...validateCronJobSpec(cronJob, allowTZ));
  // The job template's pod template gets the pod template update rules (labels and annotations are free).
  return errs;
}

/** Upstream's CronJob status update: metadata only. */
export function validateCronJobStatusUpdate(cronJob: CronJob, old: CronJob): FieldError[] {
  return validateObjectMetaUpdate(meta(cronJob), meta(old));
}

