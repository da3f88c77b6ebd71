import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { JOBS } from '../../client/rest/resources.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { jobFinishTime, needsCleanup, newTtlAfterFinishedController, type JobObject } from './controller.js';

const FINISHED_AT = '2026-12-01T10:00:00Z';

const job = (name: string, ttl: number | undefined, condition: 'Complete' | 'Failed' | 'none' = 'Complete'): JobObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'default' },
  spec: {
    ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
    template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
  },
  status: condition === 'none' ? {} : { conditions: [{ type: condition, status: 'True', lastTransitionTime: FINISHED_AT }] },
});

describe('ttl-after-finished controller', () => {
  let t: TestContext;
  let now = 0;
  afterEach(() => t.stop());

  const setUp = async (jobs: JobObject[]): Promise<void> => {
    now = Date.parse(FINISHED_AT) + 5_000;
    t = newTestContext();
    t.client.seed(JOBS, jobs);
    await newTtlAfterFinishedController({ now: () => now }).start(t.ctx);
    t.start();
  };
  const deleted = (): string[] => t.client.actionsOf('delete', 'jobs').map((a) => a.name);

  it('deletes a finished Job once its TTL is over, in the foreground and on the version it read', async () => {
    await setUp([job('done', 0), job('failed', 3, 'Failed'), job('no-ttl', undefined), job('running', 0, 'none')]);
    await waitFor(() => deleted().length >= 2 && t.reconciled('ttl-after-finished') >= 2);
    // The others stay: a Job without a TTL or not finished is never even queued.
    assert.equal(needsCleanup(job('no-ttl', undefined)), false);
    assert.equal(needsCleanup(job('running', 0, 'none')), false);
    assert.deepEqual(deleted().sort(), ['done', 'failed']);
    const action = t.client.actionsOf('delete', 'jobs')[0]!;
    const options = action.body as { propagationPolicy?: string; preconditions?: { resourceVersion?: string } };
    assert.equal(options.propagationPolicy, 'Foreground');
    assert.match(options.preconditions?.resourceVersion ?? '', /^\d+$/);
    // Foreground: the Job stays, marked, until the garbage collector has deleted its pods.
    assert.ok((await t.client.resource<JobObject>(JOBS).get('done', { namespace: 'default' })).metadata.deletionTimestamp !== undefined);
    assert.ok(await t.client.resource<JobObject>(JOBS).get('no-ttl', { namespace: 'default' }));
  });

  it('waits for a TTL that is not over yet, and keeps a Job whose TTL was removed meanwhile', async () => {
    await setUp([job('later', 60), job('kept', 60)]);
    // Nothing is due: the controller looked at both and only requeued them.
    await waitFor(() => t.reconciled('ttl-after-finished') >= 2);
    assert.deepEqual(deleted(), []);
    const jobs = t.client.resource<JobObject>(JOBS);
    const kept = await jobs.get('kept', { namespace: 'default' });
    await jobs.update({ ...kept, spec: { ...kept.spec!, ttlSecondsAfterFinished: undefined as unknown as number } });
    now = Date.parse(FINISHED_AT) + 61_000;
    // The update of an unrelated label makes the controller look again now (its requeue timer would, later).
    const later = await jobs.get('later', { namespace: 'default' });
    await jobs.update({ ...later, metadata: { ...later.metadata, labels: { nudge: '1' } } });
    await waitFor(() => deleted().includes('later'));
    assert.deepEqual(deleted(), ['later']);
  });

  it('reads the finish time from the True Complete or Failed condition', () => {
    assert.equal(jobFinishTime(job('a', 1)), Date.parse(FINISHED_AT));
    assert.equal(jobFinishTime(job('b', 1, 'none')), undefined);
    assert.equal(needsCleanup(job('c', 1)), true);
    assert.equal(needsCleanup({ ...job('d', 1), metadata: { name: 'd', deletionTimestamp: FINISHED_AT } }), false);
  });
});
