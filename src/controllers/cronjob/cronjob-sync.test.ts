import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTROLLER_UID_INDEX, type Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import { CRON_JOBS, JOBS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import type { KubeObject } from '../../machinery/meta.js';
import { newCronJobSyncer, type JobObject } from './cronjob-sync.js';
import type { CronJobObject } from './schedule-times.js';

/** An indexer over a fixed list: what a (possibly stale) informer cache holds. */
function fixedIndexer<T extends KubeObject>(objects: T[]): Indexer<T> {
  return {
    get: (key) => objects.find((o) => `${o.metadata.namespace}/${o.metadata.name}` === key),
    list: () => objects,
    keys: () => objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
    size: objects.length,
    byIndex: (index, value) => {
      assert.equal(index, CONTROLLER_UID_INDEX);
      return objects.filter((o) => o.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === value));
    },
    addIndexers: () => {},
  };
}

describe('cronjob sync', () => {
  it('reads the CronJob afresh before calling a running Job of its own unexpected (a cache older than its status write)', async () => {
    const now = Date.parse('2026-11-30T10:01:10Z');
    const client = newFakeClient({ now: () => new Date(now) });
    const stale: CronJobObject = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick', namespace: 'default', uid: 'cj-uid', creationTimestamp: '2026-11-30T10:00:30Z' },
      spec: {
        schedule: '* * * * *',
        concurrencyPolicy: 'Allow',
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
      },
    };
    const [seeded] = client.seed(CRON_JOBS, [stale]);
    const job: JobObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'tick-29408581',
        namespace: 'default',
        uid: 'job-uid',
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'cj-uid', controller: true }],
      },
      spec: { template: {} },
    };
    client.seed(JOBS, [job]);
    // The API server's CronJob lists the Job (the controller's own status write); the cache has not seen that write yet.
    await client
      .resource<CronJobObject>(CRON_JOBS)
      .updateStatus(
        { ...seeded!, status: { active: [{ kind: 'Job', namespace: 'default', name: 'tick-29408581', uid: 'job-uid', apiVersion: 'batch/v1' }], lastScheduleTime: '2026-11-30T10:01:00Z' } },
        { namespace: 'default' },
      );
    const events: string[] = [];
    const recorder: EventRecorder = { event: (_o, _t, reason) => events.push(reason) };
    const sync = newCronJobSyncer({ client, cronJobs: fixedIndexer([stale]), jobs: fixedIndexer([job]), recorder, now: () => now });
    await sync('default/tick');
    assert.deepEqual(events, []);
    const stored = await client.resource<CronJobObject>(CRON_JOBS).get('tick', { namespace: 'default' });
    assert.deepEqual(stored.status?.active?.map((r) => r.uid), ['job-uid']);
  });
});
