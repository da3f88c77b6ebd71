import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { JOBS, PODS } from '../../client/rest/resources.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { newJobController } from './controller.js';
import type { JobObject, PodObject } from './job-model.js';

const newJob = (name: string, spec: Record<string, unknown> = {}): JobObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'default' },
  spec: {
    completions: 1,
    parallelism: 1,
    backoffLimit: 6,
    completionMode: 'NonIndexed',
    template: { metadata: { labels: { 'batch.kubernetes.io/job-name': name } }, spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' } },
    ...spec,
  },
});

describe('job controller', () => {
  let t: TestContext;
  afterEach(() => t.stop());

  const jobs = () => t.client.resource<JobObject>(JOBS);
  const podsApi = () => t.client.resource<PodObject>(PODS);
  const getJob = (name: string) => jobs().get(name, { namespace: 'default' });
  const podsOf = async (job: string): Promise<PodObject[]> =>
    (await podsApi().list({ namespace: 'default' })).items.filter((p) => p.metadata.ownerReferences?.[0]?.name === job);
  const running = async (job: string): Promise<PodObject[]> => (await podsOf(job)).filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && p.metadata.deletionTimestamp === undefined);
  const hasCondition = (job: JobObject, type: string): boolean => (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
  /** Plays kubelet: a pod ends with a phase (and an exit code). */
  const finish = async (pod: PodObject, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1): Promise<void> => {
    const current = await podsApi().get(pod.metadata.name!, { namespace: 'default' });
    await podsApi().updateStatus({
      ...current,
      status: {
        ...current.status,
        phase,
        containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt: '2026-01-01T00:00:00Z' } } }],
      },
    });
  };
  const start = async (options: Parameters<typeof newJobController>[0] = {}): Promise<void> => {
    await newJobController(options).start(t.ctx);
    t.start();
  };

  it('runs completions 3 with parallelism 2 to Complete, counting through the tracking finalizer', async () => {
    t = newTestContext();
    await start();
    await jobs().create(newJob('pi', { completions: 3, parallelism: 2 }));
    await waitFor(async () => (await running('pi')).length === 2);
    const first = await running('pi');
    assert.deepEqual(first[0]!.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    assert.equal(first[0]!.metadata.labels?.['batch.kubernetes.io/job-name'], 'pi');
    await waitFor(async () => (await getJob('pi')).status?.active === 2);
    assert.ok((await getJob('pi')).status?.startTime);

    await finish(first[0]!, 'Succeeded');
    await waitFor(async () => (await podsOf('pi')).length === 3 && (await running('pi')).length === 2);
    for (const pod of await running('pi')) await finish(pod, 'Succeeded');
    await waitFor(async () => hasCondition(await getJob('pi'), 'Complete'));
    const done = await getJob('pi');
    assert.equal(done.status?.succeeded, 3);
    assert.equal(done.status?.active, 0);
    assert.ok(done.status?.completionTime);
    assert.ok(hasCondition(done, 'SuccessCriteriaMet'));
    assert.equal(done.status?.conditions?.find((c) => c.type === 'Complete')?.reason, 'CompletionsReached');
    assert.deepEqual(done.status?.uncountedTerminatedPods ?? {}, {});
    for (const pod of await podsOf('pi')) assert.deepEqual(pod.metadata.finalizers ?? [], []);
    assert.equal(t.client.actionsOf('create', 'pods').length, 3);
    const creates = t.events.filter((e) => e.reason === 'SuccessfulCreate');
    assert.equal(creates.length, 3);
    assert.match(creates[0]!.message, /^Created pod: pi-[a-z0-9]{5}$/);
    assert.equal(creates[0]!.component, 'job-controller');
    assert.deepEqual(
      t.events.filter((e) => e.reason === 'Completed').map((e) => e.message),
      ['Job completed'],
    );
  });

  it('fails with BackoffLimitExceeded: FailureTarget first, then Failed', async () => {
    t = newTestContext();
    await start();
    await jobs().create(newJob('fail', { backoffLimit: 0 }));
    await waitFor(async () => (await running('fail')).length === 1);
    await finish((await running('fail'))[0]!, 'Failed');
    await waitFor(async () => hasCondition(await getJob('fail'), 'Failed'));
    const failed = await getJob('fail');
    assert.equal(failed.status?.failed, 1);
    assert.ok(hasCondition(failed, 'FailureTarget'));
    assert.deepEqual(
      failed.status?.conditions?.filter((c) => c.type === 'Failed').map((c) => [c.reason, c.message]),
      [['BackoffLimitExceeded', 'Job has reached the specified backoff limit']],
    );
    assert.equal(failed.status?.completionTime, undefined);
    assert.deepEqual(
      t.events.filter((e) => e.type === 'Warning').map((e) => [e.reason, e.message]),
      [['BackoffLimitExceeded', 'Job has reached the specified backoff limit']],
    );
  });

  it('recreates a failed pod after the backoff', async () => {
    t = newTestContext();
    await start({ backoff: { baseMs: 20, maxMs: 40 } });
    await jobs().create(newJob('retry', { backoffLimit: 3 }));
    await waitFor(async () => (await running('retry')).length === 1);
    await finish((await running('retry'))[0]!, 'Failed');
    await waitFor(async () => (await running('retry')).length === 1 && (await podsOf('retry')).length === 2);
    await finish((await running('retry'))[0]!, 'Succeeded');
    await waitFor(async () => hasCondition(await getJob('retry'), 'Complete'));
    const job = await getJob('retry');
    assert.equal(job.status?.failed, 1);
    assert.equal(job.status?.succeeded, 1);
  });

  it('runs an Indexed Job: one pod per index, completedIndexes', async () => {
    t = newTestContext();
    await start();
    await jobs().create(newJob('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    await waitFor(async () => (await running('idx')).length === 3);
    const indexes = (await running('idx')).map((p) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index']).sort();
    assert.deepEqual(indexes, ['0', '1', '2']);
    for (const pod of await running('idx')) await finish(pod, 'Succeeded');
    await waitFor(async () => hasCondition(await getJob('idx'), 'Complete'));
    assert.equal((await getJob('idx')).status?.completedIndexes, '0-2');
  });

  it('suspends (deleting active pods) and resumes', async () => {
    t = newTestContext();
    await start();
    await jobs().create(newJob('s', { suspend: true }));
    await waitFor(async () => hasCondition(await getJob('s'), 'Suspended'));
    assert.equal((await podsOf('s')).length, 0);
    assert.equal((await getJob('s')).status?.startTime, undefined);
    await jobs().patch('s', 'merge', { spec: { suspend: false } }, { namespace: 'default' });
    await waitFor(async () => (await running('s')).length === 1);
    await waitFor(async () => (await getJob('s')).status?.conditions?.find((c) => c.type === 'Suspended')?.status === 'False');
    assert.deepEqual(
      t.events.filter((e) => e.reason === 'Suspended' || e.reason === 'Resumed').map((e) => e.message),
      ['Job suspended', 'Job resumed'],
    );
    await jobs().patch('s', 'merge', { spec: { suspend: true } }, { namespace: 'default' });
    await waitFor(async () => (await running('s')).length === 0 && hasCondition(await getJob('s'), 'Suspended'));
  });

  it('fails a Job past activeDeadlineSeconds (injected clock), terminating its pods', async () => {
    t = newTestContext();
    let now = Date.parse('2026-01-01T00:00:00Z');
    await start({ now: () => now });
    await jobs().create(newJob('slow', { activeDeadlineSeconds: 10 }));
    await waitFor(async () => (await running('slow')).length === 1);
    now += 11_000;
    await jobs().patch('slow', 'merge', { metadata: { annotations: { nudge: '1' } } }, { namespace: 'default' });
    await waitFor(async () => hasCondition(await getJob('slow'), 'Failed'));
    const job = await getJob('slow');
    assert.equal(job.status?.conditions?.find((c) => c.type === 'Failed')?.reason, 'DeadlineExceeded');
    assert.equal(job.status?.conditions?.find((c) => c.type === 'Failed')?.message, 'Job was active longer than specified deadline');
    assert.equal((await podsOf('slow')).length, 0);
  });

  it('fails at once on a podFailurePolicy FailJob rule, and ignores failures an Ignore rule matches', async () => {
    t = newTestContext();
    await start();
    await jobs().create(
      newJob('pfp', {
        backoffLimit: 6,
        podFailurePolicy: {
          rules: [
            { action: 'Ignore', onExitCodes: { operator: 'In', values: [7] } },
            { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
          ],
        },
      }),
    );
    await waitFor(async () => (await running('pfp')).length === 1);
    await finish((await running('pfp'))[0]!, 'Failed', 7);
    await waitFor(async () => (await running('pfp')).length === 1 && (await podsOf('pfp')).length === 2, { timeoutMs: 20_000 });
    assert.equal((await getJob('pfp')).status?.failed ?? 0, 0);
    await finish((await running('pfp'))[0]!, 'Failed', 42);
    await waitFor(async () => hasCondition(await getJob('pfp'), 'Failed'));
    const failed = (await getJob('pfp')).status?.conditions?.find((c) => c.type === 'Failed');
    assert.equal(failed?.reason, 'PodFailurePolicy');
    assert.match(failed?.message ?? '', /^Container main for pod default\/pfp-[a-z0-9]{5} failed with exit code 42 matching FailJob rule at index 1$/);
  });

  it('lets go of the pods of a deleted Job, so that their deletion finishes', async () => {
    t = newTestContext();
    await start();
    await jobs().create(newJob('gone'));
    await waitFor(async () => (await running('gone')).length === 1);
    const [pod] = await running('gone');
    await jobs().delete('gone', { namespace: 'default' });
    // What the garbage collector does next: delete the dependent.
    await podsApi().delete(pod!.metadata.name!, { namespace: 'default' });
    await waitFor(async () => (await podsOf('gone')).length === 0);
  });

  it('records FailedCreate and retries when a pod create fails', async () => {
    t = newTestContext();
    t.client.injectError('create', 'pods', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await start();
    await jobs().create(newJob('e'));
    await waitFor(async () => (await running('e')).length === 1);
    assert.deepEqual(
      t.events.filter((e) => e.reason === 'FailedCreate').map((e) => e.message),
      ['Error creating: boom'],
    );
    assert.equal((await podsOf('e')).length, 1);
  });
});
