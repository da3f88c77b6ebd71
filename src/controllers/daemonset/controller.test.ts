import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from '../../client/rest/resources.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { conflict } from '../../machinery/status.js';
import { POD_REVISION_LABEL, type ControllerRevisionObject } from '../history/controller-revision.js';
import { isPodAvailable } from '../util/pod-readiness.js';
import { startDaemonSetController } from './controller.js';
import { targetNodeName } from './node-binding.js';
import { startPodRunner, type PodRunner } from './testing/pod-runner.js';
import { daemonSet, node } from './testing/fixtures.js';
import type { DaemonSetObject, NodeObject, PodObject } from './types.js';

let t: TestContext | undefined;
let runner: PodRunner | undefined;
afterEach(() => {
  runner?.stop();
  t?.stop();
  runner = undefined;
  t = undefined;
});

function worker(name: string, extra: Parameters<typeof node>[1] = {}): NodeObject {
  return node(name, { ...extra, labels: { role: 'worker', ...(extra.labels ?? {}) } });
}

function workersOnly(): DaemonSetObject {
  const ds = daemonSet();
  delete ds.metadata.uid;
  delete ds.metadata.generation;
  ds.spec!.template.spec!.nodeSelector = { role: 'worker' };
  return ds;
}

async function start(nodes: NodeObject[], options: { readonly autoReady?: (pod: PodObject) => boolean } = {}): Promise<TestContext> {
  t = newTestContext();
  t.client.seed(NODES, nodes);
  startDaemonSetController(t.ctx, { failedPodBackoffInitialMs: 10 });
  t.start();
  runner = startPodRunner({ client: t.client, ...(options.autoReady ? { autoReady: options.autoReady } : {}) });
  return t;
}

const pods = (ctx: TestContext): PodObject[] => ctx.informers.informerFor<PodObject>(PODS).indexer.list();
const livePods = (ctx: TestContext): PodObject[] => pods(ctx).filter((p) => !p.metadata.deletionTimestamp);
const nodesWithPods = (ctx: TestContext): string[] => livePods(ctx).map((p) => targetNodeName(p) ?? '?').sort();
const getDs = (ctx: TestContext): Promise<DaemonSetObject> => ctx.client.resource<DaemonSetObject>(DAEMON_SETS).get('agent', { namespace: 'ns' });

describe('DaemonSet controller', () => {
  it('runs one pod per eligible node (nodeSelector, taints), bound through node affinity, with its status', async () => {
    const ctx = await start([worker('a'), worker('b'), worker('c', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }), node('d')]);
    await ctx.client.resource<DaemonSetObject>(DAEMON_SETS).create(workersOnly(), { namespace: 'ns' });
    await waitFor(async () => {
      const ds = await getDs(ctx);
      return ds.status?.numberAvailable === 2 && ds.status.observedGeneration === 1;
    });
    assert.deepEqual(nodesWithPods(ctx), ['a', 'b']);
    const pod = livePods(ctx)[0]!;
    assert.deepEqual(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.key, 'metadata.name');
    assert.ok(pod.spec?.tolerations?.some((tol) => tol.key === 'node.kubernetes.io/unreachable' && tol.effect === 'NoExecute' && tol.tolerationSeconds === undefined));
    assert.equal(pod.metadata.ownerReferences?.[0]?.kind, 'DaemonSet');
    assert.equal(pod.metadata.generateName, 'agent-');
    const ds = await getDs(ctx);
    assert.deepEqual(
      {
        desired: ds.status?.desiredNumberScheduled,
        current: ds.status?.currentNumberScheduled,
        misscheduled: ds.status?.numberMisscheduled,
        ready: ds.status?.numberReady,
        updated: ds.status?.updatedNumberScheduled,
        available: ds.status?.numberAvailable,
        unavailable: ds.status?.numberUnavailable ?? 0,
      },
      { desired: 2, current: 2, misscheduled: 0, ready: 2, updated: 2, available: 2, unavailable: 0 },
    );
    const revisions = await ctx.client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS).list({ namespace: 'ns' });
    assert.equal(revisions.items.length, 1);
    const hash = revisions.items[0]!.metadata.labels?.[POD_REVISION_LABEL];
    assert.equal(revisions.items[0]!.metadata.name, `agent-${hash}`);
    assert.equal(pod.metadata.labels?.[POD_REVISION_LABEL], hash);
    assert.deepEqual(
      ctx.events.filter((e) => e.reason === 'SuccessfulCreate').map((e) => `${e.component} ${e.object.kind}`),
      ['daemonset-controller DaemonSet', 'daemonset-controller DaemonSet'],
    );
    assert.equal(ctx.client.actionsOf('create', 'pods').filter((a) => a.subresource === undefined).length, 2, 'exactly one create per node');
  });

  it('follows nodes that come, change and go', async () => {
    const ctx = await start([worker('a')]);
    await ctx.client.resource<DaemonSetObject>(DAEMON_SETS).create(workersOnly(), { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 1);
    const nodesClient = ctx.client.resource<NodeObject>(NODES);
    await nodesClient.create(worker('b'));
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 2);
    assert.deepEqual(nodesWithPods(ctx), ['a', 'b']);

    // A NoExecute taint the pod does not tolerate evicts it; the node no longer counts.
    await nodesClient.patch('b', 'merge', { spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } });
    await waitFor(() => nodesWithPods(ctx).join() === 'a');
    await waitFor(async () => (await getDs(ctx)).status?.desiredNumberScheduled === 1);

    // A label change that stops matching the nodeSelector removes the pod too; a node going away drops from the counts.
    await nodesClient.patch('b', 'merge', { spec: { taints: null } });
    await waitFor(() => nodesWithPods(ctx).join() === 'a,b');
    await nodesClient.delete('a');
    await waitFor(async () => (await getDs(ctx)).status?.desiredNumberScheduled === 1);
    await nodesClient.patch('b', 'merge', { metadata: { labels: { role: 'infra' } } });
    await waitFor(async () => {
      const ds = await getDs(ctx);
      return ds.status?.desiredNumberScheduled === 0 && livePods(ctx).every((p) => targetNodeName(p) !== 'b');
    });
  });

  it('rolls an update out one node at a time (maxUnavailable 1), keeping history', async () => {
    const ctx = await start([worker('a'), worker('b'), worker('c')]);
    const dsClient = ctx.client.resource<DaemonSetObject>(DAEMON_SETS);
    await dsClient.create(workersOnly(), { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 3);

    // Watch availability at every pod change: never more than one of three nodes without an available pod.
    let worst = 0;
    const registration = ctx.informers.informerFor<PodObject>(PODS).addEventHandler({
      onUpdate: () => {
        const available = new Set(pods(ctx).filter((p) => !p.metadata.deletionTimestamp && isPodAvailable(p, 0, new Date())).map((p) => targetNodeName(p)));
        worst = Math.max(worst, 3 - available.size);
      },
    });
    await dsClient.patch('agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } }, { namespace: 'ns' });
    await waitFor(async () => {
      const ds = await getDs(ctx);
      return ds.status?.observedGeneration === 2 && ds.status.updatedNumberScheduled === 3 && ds.status.numberAvailable === 3;
    }, { timeoutMs: 10_000 });
    registration.remove();
    assert.ok(worst <= 1, `at most one node unavailable during the update (saw ${worst})`);
    await waitFor(() => livePods(ctx).length === 3 && livePods(ctx).every((p) => p.spec?.containers[0]?.image === 'agent:2'));
    const revisions = await ctx.client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS).list({ namespace: 'ns' });
    assert.deepEqual(revisions.items.map((r) => r.revision).sort(), [1, 2]);

    // Rolling back to the first template renumbers its revision rather than making a third.
    await dsClient.patch('agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:1' }] } } } }, { namespace: 'ns' });
    await waitFor(async () => {
      const ds = await getDs(ctx);
      return ds.status?.observedGeneration === 3 && ds.status.updatedNumberScheduled === 3 && ds.status.numberAvailable === 3;
    }, { timeoutMs: 10_000 });
    const after = await ctx.client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS).list({ namespace: 'ns' });
    assert.deepEqual(after.items.map((r) => r.revision).sort(), [2, 3]);
  });

  it('surges a new pod beside the old one when maxSurge is set', async () => {
    const ctx = await start([worker('a'), worker('b')]);
    const dsClient = ctx.client.resource<DaemonSetObject>(DAEMON_SETS);
    const ds = workersOnly();
    ds.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    await dsClient.create(ds, { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 2);
    let lowest = 2;
    ctx.informers.informerFor<PodObject>(PODS).addEventHandler({
      onUpdate: () => {
        const available = new Set(pods(ctx).filter((p) => !p.metadata.deletionTimestamp && isPodAvailable(p, 0, new Date())).map((p) => targetNodeName(p)));
        lowest = Math.min(lowest, available.size);
      },
    });
    await dsClient.patch('agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } }, { namespace: 'ns' });
    await waitFor(async () => {
      const current = await getDs(ctx);
      return current.status?.observedGeneration === 2 && current.status.updatedNumberScheduled === 2 && current.status.numberAvailable === 2 && livePods(ctx).length === 2;
    }, { timeoutMs: 10_000 });
    assert.equal(lowest, 2, 'with surge every node keeps an available pod');
  });

  it('leaves old pods alone under OnDelete until they are deleted', async () => {
    const ctx = await start([worker('a')]);
    const dsClient = ctx.client.resource<DaemonSetObject>(DAEMON_SETS);
    const ds = workersOnly();
    ds.spec!.updateStrategy = { type: 'OnDelete' };
    await dsClient.create(ds, { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 1);
    await dsClient.patch('agent', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } }, { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.observedGeneration === 2);
    assert.equal((await getDs(ctx)).status?.updatedNumberScheduled ?? 0, 0);
    const old = livePods(ctx)[0]!;
    await ctx.client.resource(PODS).delete(old.metadata.name ?? '', { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.updatedNumberScheduled === 1);
  });

  it('deletes a failed pod with a FailedDaemonPod event and makes a new one', async () => {
    const ctx = await start([worker('a')]);
    await ctx.client.resource<DaemonSetObject>(DAEMON_SETS).create(workersOnly(), { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 1);
    const first = livePods(ctx)[0]!;
    await runner!.setPhase('ns', first.metadata.name ?? '', 'Failed', false);
    await waitFor(() => livePods(ctx).length === 1 && livePods(ctx)[0]!.metadata.name !== first.metadata.name);
    const failed = ctx.events.find((e) => e.reason === 'FailedDaemonPod');
    assert.equal(failed?.message, `Found failed daemon pod ns/${first.metadata.name ?? ''} on node a, will try to kill it`);
    assert.equal(failed?.type, 'Warning');
  });

  it('warns about a DaemonSet selecting every pod, and retries failed creates', async () => {
    const ctx = await start([worker('a')]);
    const all = workersOnly();
    all.metadata.name = 'all';
    all.spec!.selector = {};
    await ctx.client.seed(DAEMON_SETS, [all]);
    await waitFor(() => ctx.events.some((e) => e.reason === 'SelectingAll'));
    assert.equal(ctx.events.find((e) => e.reason === 'SelectingAll')?.message, 'This daemon set is selecting all pods. A non-empty selector is required.');

    ctx.client.injectError('create', 'pods', new Error('quota exceeded'), 1);
    await ctx.client.resource<DaemonSetObject>(DAEMON_SETS).create(workersOnly(), { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 1, { timeoutMs: 10_000 });
    assert.ok(ctx.events.some((e) => e.reason === 'FailedCreate'));
  });

  it('writes the status again after a conflict, and retries the sync after another error', async () => {
    const ctx = await start([worker('a')]);
    ctx.client.injectError('update', 'daemonsets/status', conflict({ group: 'apps', resource: 'daemonsets' }, 'agent'), 1);
    await ctx.client.resource<DaemonSetObject>(DAEMON_SETS).create(workersOnly(), { namespace: 'ns' });
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 1);
    const statusWrites = ctx.client.actionsOf('update', 'daemonsets/status');
    assert.ok(statusWrites[0]?.error !== undefined && statusWrites.some((a) => a.error === undefined), 'a conflict, then a successful write');
    ctx.client.injectError('update', 'daemonsets/status', new Error('etcd timeout'), 1);
    await ctx.client.resource(NODES).create(worker('b'));
    await waitFor(async () => (await getDs(ctx)).status?.numberAvailable === 2);
  });
});

