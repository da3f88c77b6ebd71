import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { formatFieldError, type FieldError } from '../../../machinery/field-errors.js';
import { defaultCronJob, defaultJob, generateJobSelector } from './defaults.js';
import { validateCronJob, validateCronJobUpdate, validateJob, validateJobUpdate } from './validation.js';

const messages = (errs: FieldError[]): string[] => errs.map(formatFieldError);
const stored = <T extends { metadata?: object }>(o: T): T => ({ ...o, metadata: { ...o.metadata, resourceVersion: '3', creationTimestamp: '2024-01-01T00:00:00Z' } });

function job(restartPolicy = 'Never', extra: Partial<NonNullable<Job['spec']>> = {}): Job {
  const j: Job = { metadata: { name: 'pi', namespace: 'default', uid: 'u-1' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'perl:5' }], restartPolicy } }, ...extra } };
  generateJobSelector(j);
  defaultJob(j);
  return j;
}

function cronJob(schedule: string, name = 'hello', extra: Partial<NonNullable<CronJob['spec']>> = {}): CronJob {
  const cj: CronJob = {
    metadata: { name, namespace: 'default' },
    spec: { schedule, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } }, ...extra },
  };
  defaultCronJob(cj);
  return cj;
}

describe('job validation', () => {
  it('accepts a defaulted job with its generated selector', () => {
    assert.deepEqual(messages(validateJob(job())), []);
  });

  it('pods of a job may not always restart', () => {
    assert.deepEqual(messages(validateJob(job('Always'))), ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  });

  it('counts may not be negative; indexed jobs need completions', () => {
    const j = job('Never', { parallelism: -1, backoffLimit: -2 });
    assert.deepEqual(messages(validateJob(j)), [
      'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
      'spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0',
    ]);
    const indexed = job('Never', { completionMode: 'Indexed', parallelism: 2 });
    assert.deepEqual(messages(validateJob(indexed)), ['spec.completions: Required value: when completion mode is Indexed']);
  });

  it('a selector that is not the generated one is refused', () => {
    const j = job();
    j.spec!.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' } };
    assert.deepEqual(messages(validateJob(j)), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated',
      'spec.template.metadata.labels: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"u-1", "batch.kubernetes.io/job-name":"pi", "controller-uid":"u-1", "job-name":"pi"}: `selector` does not match template `labels`',
    ]);
  });

  it('a manual selector must match the template', () => {
    const j: Job = {
      metadata: { name: 'm', namespace: 'default', uid: 'u' },
      spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'c' } }, spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } } },
    };
    defaultJob(j);
    assert.deepEqual(messages(validateJob(j)), ['spec.template.metadata.labels: Invalid value: map[string]string{"a":"c"}: `selector` does not match template `labels`']);
  });

  it('the pod template, selector and completions are immutable; parallelism is not', () => {
    const old = stored(job());
    const next = structuredClone(old);
    next.spec!.parallelism = 3;
    assert.deepEqual(messages(validateJobUpdate(next, old)), []);
    next.spec!.template.spec!.containers[0]!.image = 'perl:6';
    next.spec!.completions = 2;
    const errs = messages(validateJobUpdate(next, old));
    assert.equal(errs[0], 'spec.completions: Invalid value: 2: field is immutable');
    assert.match(errs[1]!, /^spec\.template: Invalid value: core\.PodTemplateSpec.*: field is immutable$/);
  });

  it('a suspended job that never started may change its scheduling directives', () => {
    const old = stored(job('Never', { suspend: true }));
    const next = structuredClone(old);
    next.spec!.template.spec!.nodeSelector = { zone: 'a' };
    assert.deepEqual(messages(validateJobUpdate(next, old)), []);
  });
});

describe('cron job validation', () => {
  it('accepts schedules robfig/cron accepts', () => {
    assert.deepEqual(messages(validateCronJob(cronJob('*/5 * * * *'))), []);
    assert.deepEqual(messages(validateCronJob(cronJob('@hourly'))), []);
  });

  it('rejects bad schedules with the parser message', () => {
    assert.deepEqual(messages(validateCronJob(cronJob('61 * * * *'))), ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']);
    assert.deepEqual(messages(validateCronJob(cronJob('TZ=UTC * * * * *'))), [
      'spec.schedule: Invalid value: "TZ=UTC * * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    const missing = cronJob('');
    assert.deepEqual(messages(validateCronJob(missing)), ['spec.schedule: Required value']);
  });

  it('time zones', () => {
    assert.deepEqual(messages(validateCronJob(cronJob('0 * * * *', 'hello', { timeZone: 'Europe/Paris' }))), []);
    assert.deepEqual(messages(validateCronJob(cronJob('0 * * * *', 'hello', { timeZone: 'Mars/Olympus' }))), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']);
    assert.deepEqual(messages(validateCronJob(cronJob('0 * * * *', 'hello', { timeZone: '' }))), ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']);
  });

  it('concurrency policy, history limits, name length', () => {
    const cj = cronJob('0 * * * *', 'x'.repeat(53), { concurrencyPolicy: 'Sometimes', failedJobsHistoryLimit: -1 });
    assert.deepEqual(messages(validateCronJob(cj)), [
      'spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
      `metadata.name: Invalid value: "${'x'.repeat(53)}": must be no more than 52 characters`,
    ]);
  });

  it('TZ in an existing schedule stays allowed on update', () => {
    const old = stored(cronJob('TZ=UTC 0 * * * *'));
    const next = structuredClone(old);
    next.spec!.suspend = true;
    assert.deepEqual(messages(validateCronJobUpdate(next, old)), []);
  });
});
