import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { objectKey } from '../../client/cache/interfaces.js';
import { PODS, REPLICA_SETS } from '../../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import type { PodObject, ReplicaSetObject } from '../util/types.js';
import type { KeyQueue } from '../util/key-queue.js';
import { newReplicaSetController, replicaSetController } from './controller.js';

const contexts: TestContext[] = [];
afterEach(() => {
  for (const t of contexts.splice(0)) t.stop();
});

function context(client?: FakeClient): TestContext {
  const t = newTestContext(client === undefined ? {} : { client });
  contexts.push(t);
  return t;
}

function replicaSet(replicas: number, extra: { minReadySeconds?: number } = {}): ReplicaSetObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'ns' },
    spec: {
      replicas,
      ...extra,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

function pod(name: string, labels: Record<string, string>, owner?: ReplicaSetObject, extra: Partial<PodObject> = {}): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      labels,
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
    ...extra,
  };
}

const running = (ready: boolean, node = 'n1', readySince = '2024-01-01T00:00:00Z'): Partial<PodObject> => ({
  spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: readySince }] },
});

const recordingQueue = (): KeyQueue & { keys: string[]; delayed: { key: string; ms: number }[] } => {
  const keys: string[] = [];
  const delayed: { key: string; ms: number }[] = [];
  return { keys, delayed, enqueue: (k) => keys.push(k), enqueueAfter: (key, ms) => delayed.push({ key, ms }) };
};

async function podsOf(client: FakeClient): Promise<PodObject[]> {
  return (await client.resource<PodObject>(PODS).list({ namespace: 'ns' })).items;
}

async function rsStatus(client: FakeClient): Promise<ReplicaSetObject['status']> {
  return (await client.resource<ReplicaSetObject>(REPLICA_SETS).get('web', { namespace: 'ns' })).status;
}

describe('replicaset controller', () => {
  it('scales up: creates the missing pods from the template, owned by the ReplicaSet, with Events, and writes status', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(3)]);
    await replicaSetController.start(t.ctx);
    t.start();
    await waitFor(async () => (await rsStatus(t.client))?.replicas === 3, { description: 'status.replicas 3' });
    const pods = await podsOf(t.client);
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.match(p.metadata.name ?? '', /^web-[a-z0-9]{5}$/);
      assert.deepEqual(p.metadata.labels, { app: 'web' });
      assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs!.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    assert.equal(t.client.actionsOf('create', 'pods').length, 3, 'exactly one create per pod');
    const created = t.events.filter((e) => e.reason === 'SuccessfulCreate');
    assert.deepEqual(created.map((e) => [e.component, e.type, e.object.name]), Array(3).fill(['replicaset-controller', 'Normal', 'web']));
    assert.deepEqual(created.map((e) => e.message).sort(), pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
    const status = await rsStatus(t.client);
    assert.deepEqual([status?.fullyLabeledReplicas, status?.readyReplicas ?? 0, status?.availableReplicas ?? 0, status?.observedGeneration], [3, 0, 0, 1]);
  });

  it('scales down: deletes the lowest-ranked pods (unassigned, then not ready) with Events', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(2)]);
    t.client.seed(PODS, [
      pod('ready-a', { app: 'web' }, rs, running(true, 'n1')),
      pod('ready-b', { app: 'web' }, rs, running(true, 'n2')),
      pod('unready', { app: 'web' }, rs, running(false, 'n3')),
      pod('pending', { app: 'web' }, rs),
    ]);
    await replicaSetController.start(t.ctx);
    t.start();
    const live = async (): Promise<PodObject[]> => (await podsOf(t.client)).filter((p) => !p.metadata.deletionTimestamp);
    await waitFor(async () => (await live()).length === 2, { description: 'two pods left' });
    assert.deepEqual((await live()).map((p) => p.metadata.name).sort(), ['ready-a', 'ready-b']);
    assert.deepEqual(t.events.filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message).sort(), ['Deleted pod: pending', 'Deleted pod: unready']);
    await waitFor(async () => (await rsStatus(t.client))?.readyReplicas === 2);
    assert.equal(t.client.actionsOf('delete', 'pods').length, 2);
  });

  it('adopts matching orphans and releases owned pods that stop matching; leaves pods of other controllers alone', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(2)]);
    const other = { ...replicaSet(0), metadata: { name: 'other', namespace: 'ns', uid: 'other-uid' } };
    t.client.seed(PODS, [pod('orphan', { app: 'web' }), pod('strayed', { app: 'db' }, rs), pod('mine', { app: 'web' }, rs), pod('theirs', { app: 'web' }, other)]);
    await replicaSetController.start(t.ctx);
    t.start();
    await waitFor(async () => (await rsStatus(t.client))?.replicas === 2, { description: 'status.replicas 2' });
    const patches = t.client.actionsOf('patch', 'pods');
    assert.deepEqual(patches.map((a) => a.name).sort(), ['orphan', 'strayed']);
    const orphan = await t.client.resource<PodObject>(PODS).get('orphan', { namespace: 'ns' });
    assert.equal(orphan.metadata.ownerReferences?.find((r) => r.controller)?.uid, rs!.metadata.uid);
    assert.equal(t.client.actionsOf('create', 'pods').length, 0, 'the adopted orphan counts: nothing to create');
    assert.equal(t.client.actionsOf('delete', 'pods').length, 0);
  });

  it('reacts to pod changes: a relabelled pod is released and replaced, a new matching orphan is adopted instead of a create', async () => {
    const t = context();
    t.client.seed(REPLICA_SETS, [replicaSet(2)]);
    await replicaSetController.start(t.ctx);
    t.start();
    await waitFor(async () => (await rsStatus(t.client))?.replicas === 2);
    const [first] = await podsOf(t.client);
    await t.client.resource(PODS).patch(first!.metadata.name ?? '', 'merge', { metadata: { labels: { app: 'debug' } } }, { namespace: 'ns' });
    await waitFor(async () => {
      const pods = await podsOf(t.client);
      const released = pods.find((p) => p.metadata.name === first!.metadata.name);
      return pods.filter((p) => p.metadata.labels?.app === 'web').length === 2 && released?.metadata.ownerReferences?.some((r) => r.controller) !== true;
    }, { description: 'released and replaced' });
    assert.equal(t.client.actionsOf('create', 'pods').length, 3);
    // A matching orphan appears: it is adopted, and the ReplicaSet, now one over, deletes one pod rather than creating any.
    await t.client.resource(PODS).create(pod('stray', { app: 'web' }));
    await waitFor(() => t.client.actionsOf('patch', 'pods').some((a) => a.name === 'stray'), { description: 'orphan adopted' });
    await waitFor(async () => (await podsOf(t.client)).filter((p) => p.metadata.labels?.app === 'web' && !p.metadata.deletionTimestamp).length === 2, { description: 'back to two' });
    assert.equal(t.client.actionsOf('create', 'pods').length, 4, 'three by the controller, one by the test');
    assert.equal(t.client.actionsOf('delete', 'pods').length, 1);
  });

  it('a slow watch never makes it create twice: expectations hold further syncs until the creates are seen', async () => {
    // The controller writes to `writes`; its informers watch `seen`, which learns of the pods only when the test says so.
    const writes = newFakeClient();
    const seen = context();
    const [rs] = seen.client.seed(REPLICA_SETS, [replicaSet(3)]);
    writes.seed(REPLICA_SETS, [rs!]);
    const queue = recordingQueue();
    const controller = newReplicaSetController({ ...seen.ctx, client: writes }, queue);
    seen.start();
    await seen.informers.waitForCacheSync();
    const key = objectKey(rs!);
    await controller.sync(key);
    await controller.sync(key);
    await controller.sync(key);
    assert.equal(writes.actionsOf('create', 'pods').length, 3, 'three creates, not nine');
    assert.deepEqual(controller.expectations.pending(key), { add: 3, del: 0 });
    // The watch catches up: the three pods appear, each observed once.
    seen.client.seed(PODS, (await podsOf(writes)).map((p) => ({ ...p, metadata: { ...p.metadata, resourceVersion: undefined } })));
    await waitFor(() => controller.expectations.satisfied(key), { description: 'creations observed' });
    await controller.sync(key);
    assert.equal(writes.actionsOf('create', 'pods').length, 3);
  });

  it('expectations expire: a lost watch event delays a sync by at most the timeout', async () => {
    const writes = newFakeClient();
    const seen = context();
    const [rs] = seen.client.seed(REPLICA_SETS, [replicaSet(1)]);
    writes.seed(REPLICA_SETS, [rs!]);
    let now = Date.now();
    const controller = newReplicaSetController({ ...seen.ctx, client: writes }, recordingQueue(), { expectations: { now: () => now } });
    seen.start();
    await seen.informers.waitForCacheSync();
    await controller.sync(objectKey(rs!));
    await controller.sync(objectKey(rs!));
    assert.equal(writes.actionsOf('create', 'pods').length, 1);
    now += 5 * 60_000 + 1;
    await controller.sync(objectKey(rs!));
    assert.equal(writes.actionsOf('create', 'pods').length, 2, 'after five minutes the controller trusts its cache again');
  });

  it('a failing create stops after the first batch, records FailedCreate, sets ReplicaFailure and retries', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(10)]);
    const quota = new StatusError({ code: 403, reason: 'Forbidden', message: 'pods "web-x" is forbidden: exceeded quota: q' });
    t.client.injectError('create', 'pods', quota, 1);
    const controller = newReplicaSetController(t.ctx, recordingQueue());
    t.start();
    await t.informers.waitForCacheSync();
    await assert.rejects(controller.sync(objectKey(rs!)), quota);
    assert.equal(t.client.actionsOf('create', 'pods').length, 1, 'slow start: the first batch of one failed, nothing more was tried');
    assert.deepEqual(t.events.map((e) => [e.type, e.reason, e.message]), [['Warning', 'FailedCreate', 'Error creating: pods "web-x" is forbidden: exceeded quota: q']]);
    const status = await rsStatus(t.client);
    assert.deepEqual(status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [['ReplicaFailure', 'True', 'FailedCreate', 'pods "web-x" is forbidden: exceeded quota: q']]);
    assert.ok(controller.expectations.satisfied(objectKey(rs!)), 'the failed create is not awaited');
    await waitFor(() => t.informers.informerFor<ReplicaSetObject>(REPLICA_SETS).indexer.get('ns/web')?.status?.conditions !== undefined);
    await controller.sync(objectKey(rs!));
    assert.equal(t.client.actionsOf('create', 'pods').length, 11);
    await waitFor(async () => (await rsStatus(t.client))?.conditions === undefined, { description: 'ReplicaFailure removed' });
  });

  it('a failing delete records FailedDelete and is retried; a pod already gone is no error', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(0)]);
    t.client.seed(PODS, [pod('a', { app: 'web' }, rs)]);
    const boom = new StatusError({ code: 500, reason: 'InternalError', message: 'boom' });
    t.client.injectError('delete', 'pods', boom, 1);
    const controller = newReplicaSetController(t.ctx, recordingQueue());
    t.start();
    await t.informers.waitForCacheSync();
    await assert.rejects(controller.sync(objectKey(rs!)), boom);
    assert.deepEqual(t.events.map((e) => [e.reason, e.message]), [['FailedDelete', 'Error deleting: boom']]);
    assert.ok(controller.expectations.satisfied(objectKey(rs!)));
    await controller.sync(objectKey(rs!));
    await waitFor(async () => (await podsOf(t.client)).length === 0);
  });

  it('minReadySeconds: asks to look again when a ready pod becomes available', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(1, { minReadySeconds: 10 })]);
    const readySince = new Date(Date.now() - 4000).toISOString().replace(/\.\d+Z$/, 'Z');
    t.client.seed(PODS, [pod('a', { app: 'web' }, rs, running(true, 'n1', readySince))]);
    const controller = newReplicaSetController(t.ctx, recordingQueue());
    t.start();
    await t.informers.waitForCacheSync();
    const result = await controller.sync(objectKey(rs!));
    assert.ok(result && result.requeueAfterMs !== undefined && result.requeueAfterMs > 4000 && result.requeueAfterMs <= 7001, `requeue ${JSON.stringify(result)}`);
    const status = await rsStatus(t.client);
    assert.deepEqual([status?.readyReplicas, status?.availableReplicas ?? 0], [1, 0]);
  });

  it('status is written only when it changed; a deleted ReplicaSet is forgotten', async () => {
    const t = context();
    const [rs] = t.client.seed(REPLICA_SETS, [replicaSet(0)]);
    const controller = newReplicaSetController(t.ctx, recordingQueue());
    t.start();
    await t.informers.waitForCacheSync();
    await controller.sync(objectKey(rs!));
    assert.equal(t.client.actionsOf('update', 'replicasets/status').length, 1);
    await waitFor(() => t.informers.informerFor<ReplicaSetObject>(REPLICA_SETS).indexer.get('ns/web')?.status?.observedGeneration === 1);
    await controller.sync(objectKey(rs!));
    assert.equal(t.client.actionsOf('update', 'replicasets/status').length, 1, 'nothing changed: no write');
    await controller.sync('ns/absent');
    assert.equal(t.client.actions.length, 1);
  });
});
