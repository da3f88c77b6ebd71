import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { defaultCronJob, defaultJob, generateJobSelector } from './defaults.js';

const podTemplate = () => ({ spec: { containers: [{ name: 'c', image: 'perl:5' }], restartPolicy: 'Never' } });

describe('batch/v1 defaults', () => {
  it('jobs: completions, parallelism, backoff, mode, suspend, replacement policy, manual selector', () => {
    const job: Job = { metadata: { name: 'pi' }, spec: { template: podTemplate() } };
    defaultJob(job);
    const { template, ...spec } = job.spec!;
    assert.deepEqual(spec, {
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      manualSelector: false,
    });
    assert.equal(template.spec!.terminationGracePeriodSeconds, 30);
  });

  it('jobs: parallelism alone leaves completions unset; a failure policy means Failed replacement', () => {
    const job: Job = { metadata: {}, spec: { parallelism: 3, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' } as never] }] }, template: podTemplate() } };
    defaultJob(job);
    assert.equal(job.spec!.completions, undefined);
    assert.equal(job.spec!.podReplacementPolicy, 'Failed');
    assert.equal(job.spec!.podFailurePolicy!.rules[0]!.onPodConditions![0]!.status, 'True');
  });

  it('jobs: per-index backoff makes the global backoff limit unbounded', () => {
    const job: Job = { metadata: {}, spec: { completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1, template: podTemplate() } };
    defaultJob(job);
    assert.equal(job.spec!.backoffLimit, 2147483647);
  });

  it('jobs: the generated selector and labels, then the job takes its pods labels', () => {
    const job: Job = { metadata: { name: 'pi', uid: 'u-1' }, spec: { template: podTemplate() } };
    generateJobSelector(job);
    defaultJob(job);
    assert.deepEqual(job.spec!.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
    const labels = {
      'batch.kubernetes.io/controller-uid': 'u-1',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'u-1',
      'job-name': 'pi',
    };
    assert.deepEqual(job.spec!.template.metadata!.labels, labels);
    assert.deepEqual(job.metadata!.labels, labels);
  });

  it('jobs: a manual selector is left alone', () => {
    const job: Job = { metadata: { name: 'pi', uid: 'u' }, spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: podTemplate() } };
    generateJobSelector(job);
    assert.deepEqual(job.spec!.selector, { matchLabels: { a: 'b' } });
    assert.equal(job.spec!.template.metadata, undefined);
  });

  it('cron jobs: policy, suspend, history limits; only the pod template of the job template', () => {
    const cj: CronJob = { metadata: {}, spec: { schedule: '@hourly', jobTemplate: { spec: { template: podTemplate() } } } };
    defaultCronJob(cj);
    const { jobTemplate, ...spec } = cj.spec!;
    assert.deepEqual(spec, { schedule: '@hourly', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    assert.deepEqual(jobTemplate.metadata, { creationTimestamp: null });
    assert.equal(jobTemplate.spec!.backoffLimit, undefined);
    assert.equal(jobTemplate.spec!.template.spec!.dnsPolicy, 'ClusterFirst');
  });
});
