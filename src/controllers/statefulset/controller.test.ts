import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CONTROLLER_REVISIONS, PODS, STATEFUL_SETS } from '../../client/rest/resources.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { conflict } from '../../machinery/status.js';
import type { ControllerRevisionObject } from '../history/controller-revision.js';
import { isPodReady } from '../util/pod-readiness.js';
import { startPodRunner, type PodRunner } from '../daemonset/testing/pod-runner.js';
import { startStatefulSetController } from './controller.js';
import { statefulSet } from './testing/fixtures.js';
import type { PodObject, StatefulSetObject } from './types.js';

let t: TestContext | undefined;
let runner: PodRunner | undefined;
afterEach(() => {
  runner?.stop();
  t?.stop();
  runner = undefined;
  t = undefined;
});

function newSet(spec: Parameters<typeof statefulSet>[0] = {}): StatefulSetObject {
  const set = statefulSet(spec);
  delete set.metadata.uid;
  delete set.metadata.generation;
  return set;
}

/** A controller with a pod runner that binds every pod and makes it Ready only when told (manual) or at once. */
function start(options: { readonly manualReady?: boolean } = {}): TestContext {
  t = newTestContext();
  startStatefulSetController(t.ctx);
  t.start();
  runner = startPodRunner({ client: t.client, defaultNode: 'n1', ...(options.manualReady === true ? { autoReady: () => false } : {}) });
  return t;
}

const live = (ctx: TestContext): PodObject[] =>
  ctx.informers
    .informerFor<PodObject>(PODS)
    .indexer.list()
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
const names = (ctx: TestContext): string => live(ctx).map((p) => p.metadata.name).join(',');
const getSet = (ctx: TestContext): Promise<StatefulSetObject> => ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).get('web', { namespace: 'ns' });
const podCreates = (ctx: TestContext): string[] => ctx.client.actionsOf('create', 'pods').filter((a) => a.subresource === undefined && a.error === undefined).map((a) => a.name);
const podDeletes = (ctx: TestContext): string[] => ctx.client.actionsOf('delete', 'pods').filter((a) => (a.body as { gracePeriodSeconds?: number } | undefined)?.gracePeriodSeconds !== 0).map((a) => a.name);

describe('StatefulSet controller', () => {
  it('OrderedReady: creates web-0, web-1, web-2 in order, each only after the previous is Running and Ready', async () => {
    const ctx = start({ manualReady: true });
    await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).create(newSet(), { namespace: 'ns' });
    for (const [ordinal, expected] of ['web-0', 'web-0,web-1', 'web-0,web-1,web-2'].entries()) {
      await waitFor(() => names(ctx) === expected && live(ctx)[ordinal]?.spec?.nodeName === 'n1');
      assert.equal(names(ctx), expected, 'no pod is made before its predecessor is Ready');
      await runner!.markReady('ns', `web-${ordinal}`);
    }
    await waitFor(async () => {
      const set = await getSet(ctx);
      return set.status?.readyReplicas === 3 && set.status.availableReplicas === 3 && set.status.currentReplicas === 3;
    });
    assert.deepEqual(podCreates(ctx), ['web-0', 'web-1', 'web-2']);
    const pod = live(ctx)[1]!;
    assert.equal(pod.spec?.hostname, 'web-1');
    assert.equal(pod.spec?.subdomain, 'web');
    assert.equal(pod.metadata.labels?.['statefulset.kubernetes.io/pod-name'], 'web-1');
    assert.equal(pod.metadata.labels?.['apps.kubernetes.io/pod-index'], '1');
    const set = await getSet(ctx);
    assert.equal(pod.metadata.labels?.['controller-revision-hash'], set.status?.updateRevision);
    assert.equal(set.status?.currentRevision, set.status?.updateRevision);
    assert.equal(set.status?.observedGeneration, 1);
    assert.deepEqual(
      ctx.events.filter((e) => e.reason === 'SuccessfulCreate').map((e) => `${e.component}: ${e.message}`),
      ['web-0', 'web-1', 'web-2'].map((n) => `statefulset-controller: create Pod ${n} in StatefulSet web successful`),
    );
  });

  it('OrderedReady: scales down in reverse order, one at a time, waiting for each to go', async () => {
    const ctx = start();
    const sets = ctx.client.resource<StatefulSetObject>(STATEFUL_SETS);
    await sets.create(newSet({ replicas: 4 }), { namespace: 'ns' });
    await waitFor(async () => (await getSet(ctx)).status?.readyReplicas === 4);
    await sets.patch('web', 'merge', { spec: { replicas: 1 } }, { namespace: 'ns' });
    await waitFor(async () => names(ctx) === 'web-0' && (await getSet(ctx)).status?.replicas === 1);
    assert.deepEqual(podDeletes(ctx), ['web-3', 'web-2', 'web-1']);
    assert.deepEqual(
      ctx.events.filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message),
      ['web-3', 'web-2', 'web-1'].map((n) => `delete Pod ${n} in StatefulSet web successful`),
    );
  });

  it('stops creating at an unhealthy pod', async () => {
    const ctx = start({ manualReady: true });
    await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).create(newSet(), { namespace: 'ns' });
    await waitFor(() => names(ctx) === 'web-0' && live(ctx)[0]?.spec?.nodeName === 'n1');
    await runner!.setPhase('ns', 'web-0', 'Running', false);
    await waitFor(async () => (await getSet(ctx)).status?.replicas === 1);
    assert.equal(names(ctx), 'web-0');
    await runner!.markReady('ns', 'web-0');
    await waitFor(() => names(ctx) === 'web-0,web-1');
  });

  it('Parallel: creates every pod at once and deletes at once', async () => {
    const ctx = start({ manualReady: true });
    const sets = ctx.client.resource<StatefulSetObject>(STATEFUL_SETS);
    await sets.create(newSet({ podManagementPolicy: 'Parallel' }), { namespace: 'ns' });
    await waitFor(() => names(ctx) === 'web-0,web-1,web-2');
    assert.ok(live(ctx).every((p) => !isPodReady(p)), 'none was Ready when all three were made');
    await sets.patch('web', 'merge', { spec: { replicas: 0 } }, { namespace: 'ns' });
    await waitFor(() => names(ctx) === '');
    assert.deepEqual(podDeletes(ctx).sort(), ['web-0', 'web-1', 'web-2']);
  });

  it('rolls a partitioned update from the highest ordinal down, then finishes it when the partition drops', async () => {
    const ctx = start();
    const sets = ctx.client.resource<StatefulSetObject>(STATEFUL_SETS);
    await sets.create(newSet(), { namespace: 'ns' });
    await waitFor(async () => (await getSet(ctx)).status?.readyReplicas === 3);
    const before = await getSet(ctx);
    await sets.patch(
      'web',
      'merge',
      { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } }, template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
      { namespace: 'ns' },
    );
    await waitFor(async () => {
      const set = await getSet(ctx);
      return set.status?.observedGeneration === 2 && set.status.updatedReplicas === 2 && set.status.readyReplicas === 3;
    }, { timeoutMs: 10_000 });
    const images = () => live(ctx).map((p) => p.spec?.containers[0]?.image).join(',');
    assert.equal(images(), 'nginx:1,nginx:2,nginx:2');
    assert.deepEqual(podDeletes(ctx), ['web-2', 'web-1']);
    const partial = await getSet(ctx);
    assert.equal(partial.status?.currentRevision, before.status?.currentRevision, 'the current revision stays while the partition holds');
    assert.notEqual(partial.status?.updateRevision, partial.status?.currentRevision);

    await sets.patch('web', 'merge', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, { namespace: 'ns' });
    await waitFor(async () => {
      const set = await getSet(ctx);
      return set.status?.updatedReplicas === 3 && set.status.currentRevision === set.status.updateRevision && set.status.readyReplicas === 3;
    }, { timeoutMs: 10_000 });
    assert.equal(images(), 'nginx:2,nginx:2,nginx:2');
    const revisions = await ctx.client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS).list({ namespace: 'ns' });
    assert.deepEqual(revisions.items.map((r) => r.revision).sort(), [1, 2]);
    assert.ok(revisions.items.every((r) => r.metadata.name?.startsWith('web-') && r.metadata.labels?.['controller.kubernetes.io/hash']));
  });

  it('recreates a failed pod with a RecreatingFailedPod event', async () => {
    const ctx = start();
    await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).create(newSet({ replicas: 1 }), { namespace: 'ns' });
    await waitFor(async () => (await getSet(ctx)).status?.readyReplicas === 1);
    const first = live(ctx)[0]!.metadata.uid;
    await runner!.setPhase('ns', 'web-0', 'Failed', false);
    await waitFor(() => live(ctx).length === 1 && live(ctx)[0]!.metadata.uid !== first && isPodReady(live(ctx)[0]!));
    const event = ctx.events.find((e) => e.reason === 'RecreatingFailedPod');
    assert.equal(event?.message, 'StatefulSet ns/web is recreating failed Pod web-0');
  });

  it('trims revision history to revisionHistoryLimit, keeping live revisions', async () => {
    const ctx = start();
    const sets = ctx.client.resource<StatefulSetObject>(STATEFUL_SETS);
    await sets.create(newSet({ replicas: 1, revisionHistoryLimit: 1 }), { namespace: 'ns' });
    for (const tag of ['2', '3', '4']) {
      await sets.patch('web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: `nginx:${tag}` }] } } } }, { namespace: 'ns' });
      await waitFor(async () => {
        const set = await getSet(ctx);
        return set.status?.observedGeneration === (set.metadata.generation ?? 0) && set.status?.currentRevision === set.status?.updateRevision && set.status?.readyReplicas === 1;
      }, { timeoutMs: 10_000 });
    }
    await waitFor(async () => (await ctx.client.resource(CONTROLLER_REVISIONS).list({ namespace: 'ns' })).items.length === 2);
  });

  it('reports a failed create as FailedCreate and retries', async () => {
    const ctx = start();
    ctx.client.injectError('create', 'pods', new Error('quota exceeded'), 1);
    await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).create(newSet({ replicas: 1 }), { namespace: 'ns' });
    await waitFor(async () => (await getSet(ctx)).status?.readyReplicas === 1, { timeoutMs: 10_000 });
    assert.equal(ctx.events.find((e) => e.reason === 'FailedCreate')?.message, 'create Pod web-0 in StatefulSet web failed error: quota exceeded');
  });

  it('adopts an orphan member pod, leaves a matching non-member alone, and releases an owned pod that is no member', async () => {
    const ctx = start();
    const orphan: PodObject = { metadata: { name: 'web-0', namespace: 'ns', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };
    const stranger: PodObject = { metadata: { name: 'cache-7', namespace: 'ns', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };
    ctx.client.seed(PODS, [orphan, stranger]);
    const set = await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).create(newSet({ replicas: 1 }), { namespace: 'ns' });
    await waitFor(async () => (await ctx.client.resource<PodObject>(PODS).get('web-0', { namespace: 'ns' })).metadata.ownerReferences?.[0]?.uid === set.metadata.uid);
    assert.equal((await ctx.client.resource<PodObject>(PODS).get('cache-7', { namespace: 'ns' })).metadata.ownerReferences, undefined);
    const owned: PodObject = {
      metadata: { name: 'misnamed', namespace: 'ns', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid ?? '', controller: true }] },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
    };
    await ctx.client.resource<PodObject>(PODS).create(owned, { namespace: 'ns' });
    await waitFor(async () => ((await ctx.client.resource<PodObject>(PODS).get('misnamed', { namespace: 'ns' })).metadata.ownerReferences ?? []).length === 0);
  });

  it('writes the status again after a conflict, and retries the sync after another error', async () => {
    const ctx = start();
    ctx.client.injectError('update', 'statefulsets/status', conflict({ group: 'apps', resource: 'statefulsets' }, 'web'), 1);
    await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).create(newSet({ replicas: 1 }), { namespace: 'ns' });
    await waitFor(async () => (await getSet(ctx)).status?.readyReplicas === 1);
    const statusWrites = ctx.client.actionsOf('update', 'statefulsets/status');
    assert.ok(statusWrites[0]?.error !== undefined && statusWrites.some((a) => a.error === undefined), 'a conflict, then a successful write');
    ctx.client.injectError('create', 'controllerrevisions', new Error('etcd timeout'), 1);
    await ctx.client.resource<StatefulSetObject>(STATEFUL_SETS).patch('web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, { namespace: 'ns' });
    await waitFor(async () => {
      const set = await getSet(ctx);
      return set.status?.observedGeneration === 2 && set.status.currentRevision === set.status.updateRevision && set.status.readyReplicas === 1;
    }, { timeoutMs: 10_000 });
  });
});

