import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CRON_JOBS, JOBS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { newCronJobController } from './controller.js';
import { SCHEDULED_TIMESTAMP_ANNOTATION, type JobObject } from './cronjob-sync.js';
import type { CronJobObject } from './schedule-times.js';

const cronJob = (spec: Record<string, unknown> = {}): CronJobObject => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'tick', namespace: 'default' },
  spec: {
    schedule: '* * * * *',
    concurrencyPolicy: 'Allow',
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: { metadata: { labels: { app: 'tick' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
    ...spec,
  },
});

describe('cronjob controller', () => {
  let t: TestContext;
  let now = 0;
  afterEach(() => t.stop());

  const cronJobs = () => t.client.resource<CronJobObject>(CRON_JOBS);
  const jobs = () => t.client.resource<JobObject>(JOBS);
  const getCronJob = () => cronJobs().get('tick', { namespace: 'default' });
  const jobNames = async (): Promise<string[]> => (await jobs().list({ namespace: 'default' })).items.map((j) => j.metadata.name!).sort();
  /** Move the injected clock and make the controller look (as its requeue timer would). */
  const advanceTo = async (iso: string): Promise<void> => {
    now = Date.parse(iso);
    await cronJobs().patch('tick', 'merge', { metadata: { annotations: { nudge: iso } } }, { namespace: 'default' });
  };
  const complete = async (name: string, type: 'Complete' | 'Failed', at: string): Promise<void> => {
    const job = await jobs().get(name, { namespace: 'default' });
    await jobs().updateStatus({
      ...job,
      status: { conditions: [{ type, status: 'True' }], ...(type === 'Complete' ? { completionTime: at } : {}), startTime: at },
    });
  };
  const setUp = async (spec: Record<string, unknown> = {}): Promise<void> => {
    now = Date.parse('2026-11-30T10:00:30Z');
    t = newTestContext({ client: newFakeClient({ now: () => new Date(now) }) });
    await newCronJobController({ now: () => now }).start(t.ctx);
    t.start();
    await cronJobs().create(cronJob(spec));
  };
  const minutes = (iso: string): number => Math.floor(Date.parse(iso) / 60_000);

  it('starts the Job of each schedule time, then sees it complete', async () => {
    await setUp();
    await advanceTo('2026-11-30T10:01:05Z');
    const name = `tick-${minutes('2026-11-30T10:01:00Z')}`;
    await waitFor(async () => (await getCronJob()).status?.lastScheduleTime === '2026-11-30T10:01:00Z');
    const job = await jobs().get(name, { namespace: 'default' });
    assert.equal(job.metadata.annotations?.[SCHEDULED_TIMESTAMP_ANNOTATION], '2026-11-30T10:01:00Z');
    assert.deepEqual(job.metadata.labels, { app: 'tick' });
    assert.equal(job.metadata.ownerReferences?.[0]?.kind, 'CronJob');
    assert.deepEqual((await getCronJob()).status?.active?.map((r) => r.name), [name]);
    const created = t.events.find((e) => e.reason === 'SuccessfulCreate');
    assert.equal(created?.message, `Created job ${name}`);
    assert.equal(created?.component, 'cronjob-controller');

    await complete(name, 'Complete', '2026-11-30T10:01:30Z');
    await waitFor(async () => (await getCronJob()).status?.lastSuccessfulTime === '2026-11-30T10:01:30Z');
    assert.equal((await getCronJob()).status?.active, undefined);
    assert.equal(t.events.find((e) => e.reason === 'SawCompletedJob')?.message, `Saw completed job: ${name}, condition: Complete`);
    assert.equal(t.client.actionsOf('create', 'jobs').filter((a) => a.error === undefined).length, 1);
  });

  it('Forbid skips a run while one is active; Replace deletes it first', async () => {
    await setUp({ concurrencyPolicy: 'Forbid' });
    await advanceTo('2026-11-30T10:01:05Z');
    await waitFor(async () => (await jobNames()).length === 1);
    await advanceTo('2026-11-30T10:02:05Z');
    await waitFor(() => t.events.some((e) => e.reason === 'JobAlreadyActive'));
    assert.equal(t.events.find((e) => e.reason === 'JobAlreadyActive')?.message, 'Not starting job because prior execution is running and concurrency policy is Forbid');
    assert.equal((await jobNames()).length, 1);

    await cronJobs().patch('tick', 'merge', { spec: { concurrencyPolicy: 'Replace' } }, { namespace: 'default' });
    await advanceTo('2026-11-30T10:03:05Z');
    await waitFor(async () => (await jobNames()).join() === `tick-${minutes('2026-11-30T10:03:00Z')}`);
    assert.equal(t.events.find((e) => e.reason === 'SuccessfulDelete')?.message, `Deleted job tick-${minutes('2026-11-30T10:01:00Z')}`);
  });

  it('starts nothing while suspended, nor for a time older than startingDeadlineSeconds', async () => {
    await setUp({ suspend: true, startingDeadlineSeconds: 10 });
    await advanceTo('2026-11-30T10:01:30Z');
    await cronJobs().patch('tick', 'merge', { spec: { suspend: false } }, { namespace: 'default' });
    await advanceTo('2026-11-30T10:02:40Z');
    await waitFor(async () => (await getCronJob()).metadata.annotations?.nudge === '2026-11-30T10:02:40Z');
    await advanceTo('2026-11-30T10:03:05Z');
    await waitFor(async () => (await jobNames()).length === 1);
    assert.deepEqual(await jobNames(), [`tick-${minutes('2026-11-30T10:03:00Z')}`]);
  });

  it('keeps successfulJobsHistoryLimit finished Jobs', async () => {
    await setUp({ successfulJobsHistoryLimit: 1 });
    for (const minute of ['01', '02']) {
      await advanceTo(`2026-11-30T10:${minute}:05Z`);
      const name = `tick-${minutes(`2026-11-30T10:${minute}:00Z`)}`;
      await waitFor(async () => (await jobNames()).includes(name));
      await complete(name, 'Complete', `2026-11-30T10:${minute}:30Z`);
      await waitFor(async () => (await getCronJob()).status?.lastSuccessfulTime === `2026-11-30T10:${minute}:30Z`);
    }
    await waitFor(async () => (await jobNames()).length === 1);
    assert.deepEqual(await jobNames(), [`tick-${minutes('2026-11-30T10:02:00Z')}`]);
  });

  it('takes a Job of its own that already exists (a status write that did not land) as the run’s Job', async () => {
    now = Date.parse('2026-11-30T10:01:05Z');
    t = newTestContext({ client: newFakeClient({ now: () => new Date(now) }) });
    const cj = cronJob();
    cj.metadata = { ...cj.metadata, uid: 'cj-uid', creationTimestamp: '2026-11-30T10:00:30Z' };
    t.client.seed(CRON_JOBS, [cj]);
    const name = `tick-${minutes('2026-11-30T10:01:00Z')}`;
    t.client.seed(JOBS, [
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'cj-uid', controller: true }] }, spec: { template: {} } },
    ]);
    await newCronJobController({ now: () => now }).start(t.ctx);
    t.start();
    await waitFor(async () => (await getCronJob()).status?.lastScheduleTime === '2026-11-30T10:01:00Z');
    assert.deepEqual((await getCronJob()).status?.active?.map((r) => r.name), [name]);
    assert.ok(t.events.some((e) => e.reason === 'UnexpectedJob'));
  });

  it('records UnparseableSchedule for a schedule it cannot parse', async () => {
    now = Date.parse('2026-11-30T10:00:30Z');
    t = newTestContext({ client: newFakeClient({ now: () => new Date(now) }) });
    t.client.seed(CRON_JOBS, [cronJob({ schedule: '61 * * * *' })]);
    await newCronJobController({ now: () => now }).start(t.ctx);
    t.start();
    await waitFor(() => t.events.some((e) => e.reason === 'UnparseableSchedule'));
    assert.equal(t.events.find((e) => e.reason === 'UnparseableSchedule')?.message, 'unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61');
  });

  it('records FailedCreate and retries a failed Job create', async () => {
    await setUp();
    t.client.injectError('create', 'jobs', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await advanceTo('2026-11-30T10:01:05Z');
    await waitFor(async () => (await jobNames()).length === 1);
    assert.equal(t.events.find((e) => e.reason === 'FailedCreate')?.message, 'Error creating job: boom');
  });
});
