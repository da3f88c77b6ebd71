import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextBackoffRecord, remainingBackoffMs } from './backoff.js';
import { Expectations } from './expectations.js';
import { formatIndexes, isPodFailed, parseIndexes, type JobObject, type PodObject } from './job-model.js';
import { planIndexed } from './job-sync.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { podForJob } from './pod-template.js';

const job = (spec: Record<string, unknown> = {}): JobObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'pi', namespace: 'default', uid: 'job-uid' },
  spec: { template: { metadata: { labels: { 'batch.kubernetes.io/job-name': 'pi' } }, spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' } }, ...spec },
});
const pod = (name: string, extra: Partial<PodObject> = {}, index?: number): PodObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, uid: `u-${name}`, ...(index !== undefined ? { annotations: { 'batch.kubernetes.io/job-completion-index': String(index) } } : {}) },
  ...extra,
});

describe('completion indexes', () => {
  it('parse and format as upstream (runs as ranges)', () => {
    assert.deepEqual([...parseIndexes('0,2-4,7')].sort((a, b) => a - b), [0, 2, 3, 4, 7]);
    assert.equal(formatIndexes([4, 0, 3, 2, 7, 3]), '0,2-4,7');
    assert.equal(formatIndexes([]), '');
    assert.equal(parseIndexes(undefined).size, 0);
  });
});

describe('pod failure backoff', () => {
  it('doubles from 10 s per failure since the last success, capped at 10 minutes', () => {
    let record = nextBackoffRecord({ failuresAfterLastSuccess: 0, lastFailureTime: undefined }, { succeeded: 0, failureTimes: [1000] });
    assert.equal(remainingBackoffMs(record, 1000), 10_000);
    record = nextBackoffRecord(record, { succeeded: 0, failureTimes: [2000] });
    assert.equal(remainingBackoffMs(record, 2000), 20_000);
    record = { failuresAfterLastSuccess: 20, lastFailureTime: 0 };
    assert.equal(remainingBackoffMs(record, 0), 600_000);
    assert.equal(remainingBackoffMs(record, 700_000), 0);
  });
  it('resets after a success', () => {
    const record = nextBackoffRecord({ failuresAfterLastSuccess: 3, lastFailureTime: 5 }, { succeeded: 1, failureTimes: [] });
    assert.equal(remainingBackoffMs(record, 5), 0);
  });
  it('takes the options', () => {
    assert.equal(remainingBackoffMs({ failuresAfterLastSuccess: 2, lastFailureTime: 0 }, 0, { baseMs: 10, maxMs: 15 }), 15);
  });
});

describe('isPodFailed', () => {
  it('counts a deleted unfinished pod as failed unless only failed pods are replaced', () => {
    const deleting = pod('a', { status: { phase: 'Running' } });
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    assert.equal(isPodFailed(deleting, job()), true);
    assert.equal(isPodFailed(deleting, job({ podReplacementPolicy: 'Failed' })), false);
    assert.equal(isPodFailed(pod('b', { status: { phase: 'Failed' } }), job({ podReplacementPolicy: 'Failed' })), true);
  });
});

describe('planIndexed', () => {
  it('creates the lowest missing indexes up to parallelism and deletes duplicates and finished indexes', () => {
    const active = [pod('a', {}, 0), pod('b', {}, 0), pod('c', {}, 2), pod('d', {}, 9)];
    const plan = planIndexed(active, new Set([2]), 4, 3);
    assert.deepEqual(plan.toDelete.map((p) => p.metadata.name), ['b', 'c', 'd']);
    assert.deepEqual(plan.toCreate, [1, 3]);
  });
  it('deletes the highest indexes above parallelism', () => {
    const plan = planIndexed([pod('a', {}, 0), pod('b', {}, 1), pod('c', {}, 2)], new Set(), 5, 2);
    assert.deepEqual(plan.toDelete.map((p) => p.metadata.name), ['c']);
    assert.deepEqual(plan.toCreate, []);
  });
});

describe('matchPodFailurePolicy', () => {
  const failed = (exitCode: number, conditions: { type: string; status: string }[] = []): PodObject =>
    pod('p', { metadata: { name: 'p', namespace: 'default' }, status: { phase: 'Failed', conditions, containerStatuses: [{ name: 'main', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } }] } });
  const withPolicy = job({
    podFailurePolicy: {
      rules: [
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
        { action: 'Count', onExitCodes: { operator: 'NotIn', values: [42] } },
      ],
    },
  });
  it('matches exit codes and conditions in rule order, with upstream’s message', () => {
    assert.deepEqual(matchPodFailurePolicy(withPolicy, failed(42)), {
      action: 'FailJob',
      message: 'Container main for pod default/p failed with exit code 42 matching FailJob rule at index 1',
    });
    assert.equal(matchPodFailurePolicy(withPolicy, failed(42, [{ type: 'DisruptionTarget', status: 'True' }]))?.action, 'Ignore');
    assert.equal(matchPodFailurePolicy(withPolicy, failed(1))?.action, 'Count');
    assert.equal(matchPodFailurePolicy(job(), failed(1)), undefined);
  });
});

describe('podForJob', () => {
  it('owns the pod, carries the tracking finalizer and the template', () => {
    const p = podForJob(job());
    assert.equal(p.metadata.generateName, 'pi-');
    assert.deepEqual(p.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: 'job-uid', controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(p.metadata.labels, { 'batch.kubernetes.io/job-name': 'pi' });
  });
  it('gives an Indexed pod its index as annotation, label, env var and hostname', () => {
    const p = podForJob(job({ completionMode: 'Indexed' }), 3);
    assert.equal(p.metadata.generateName, 'pi-3-');
    assert.equal(p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'], '3');
    assert.equal(p.metadata.labels?.['batch.kubernetes.io/job-completion-index'], '3');
    assert.equal(p.spec?.hostname, 'pi-3');
    assert.deepEqual(p.spec?.containers[0]?.env, [
      { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
    ]);
  });
});

describe('Expectations', () => {
  it('holds until creations and deletions are observed, or expire', () => {
    let now = 0;
    const e = new Expectations({ ttlMs: 100, now: () => now });
    e.expectCreations('k', 2);
    e.expectDeletions('k', ['u1']);
    assert.equal(e.satisfied('k'), false);
    e.creationObserved('k');
    e.lowerCreations('k', 1);
    assert.equal(e.satisfied('k'), false);
    e.deletionObserved('k', 'u1');
    assert.equal(e.satisfied('k'), true);
    e.expectCreations('k', 1);
    now = 101;
    assert.equal(e.satisfied('k'), true);
  });
});
