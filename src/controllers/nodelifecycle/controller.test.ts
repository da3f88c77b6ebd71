import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Pod, Taint } from 'kubernetes-types/core/v1.js';
import type { SharedIndexInformer } from '../../client/cache/interfaces.js';
import { LEASES, NODES, PODS } from '../../client/rest/resources.js';
import { formatTime, type KubeObject } from '../../machinery/meta.js';
import { notFound, serviceUnavailable } from '../../machinery/status.js';
import type { ControllerManagerOptions } from '../context.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { NODE_LEASE_NAMESPACE, NodeLifecycleController, nodeLifecycleController } from './controller.js';
import { ensurePodNodeNameIndex, type NodeObject } from './node-taints.js';

type PodObject = KubeObject & Pod;
type LeaseObject = KubeObject & Lease;

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (ms: number): string => formatTime(new Date(ms));

function node(name: string, options: { ready?: string; heartbeat?: number; zone?: string; conditions?: boolean } = {}): NodeObject {
  const heartbeat = at(options.heartbeat ?? T0);
  return {
    metadata: { name, labels: { 'topology.kubernetes.io/zone': options.zone ?? 'a' } },
    spec: {},
    status:
      options.conditions === false
        ? {}
        : {
            conditions: [
              { type: 'Ready', status: options.ready ?? 'True', reason: 'KubeletReady', lastHeartbeatTime: heartbeat, lastTransitionTime: at(T0) },
              { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: heartbeat, lastTransitionTime: at(T0) },
            ],
          },
  };
}

const lease = (name: string, renew: number): LeaseObject => ({
  metadata: { name, namespace: NODE_LEASE_NAMESPACE },
  spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date(renew).toISOString().replace('Z', '000Z') },
});

const readyPod = (name: string, nodeName: string): PodObject => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});

const noExecute = (n: NodeObject | undefined): string[] =>
  (n?.spec?.taints ?? []).filter((t: Taint) => t.effect === 'NoExecute').map((t) => t.key);
const taintsOf = (n: NodeObject | undefined): string[] => (n?.spec?.taints ?? []).map((t: Taint) => `${t.key}:${t.effect}`).sort();

describe('node lifecycle controller', () => {
  let t: TestContext;
  let nodes: SharedIndexInformer<NodeObject>;
  let leases: SharedIndexInformer<LeaseObject>;
  let pods: SharedIndexInformer<PodObject>;
  let clock: number;
  let controller: NodeLifecycleController;
  let failures: string[];

  /** A controller on a clock the test moves, with the informers of a test context. */
  async function setUp(overrides: Partial<ControllerManagerOptions> = {}): Promise<void> {
    t = newTestContext({ options: overrides });
    failures = [];
    nodes = t.ctx.informers.informerFor<NodeObject>(NODES);
    leases = t.ctx.informers.informerFor<LeaseObject>(LEASES, { namespace: NODE_LEASE_NAMESPACE });
    pods = t.ctx.informers.informerFor<PodObject>(PODS);
    ensurePodNodeNameIndex(pods);
    clock = T0;
    controller = new NodeLifecycleController({
      nodes: nodes.indexer,
      leases: leases.indexer,
      pods: pods.indexer,
      client: t.client,
      recorder: t.ctx.events.recorderFor('node-controller'),
      options: t.ctx.options,
      now: () => clock,
      onError: (error, nodeName) => failures.push(`${nodeName}: ${(error as Error).message}`),
    });
    t.start();
    await t.ctx.informers.waitForCacheSync();
  }

  const stored = (name: string): Promise<NodeObject> => t.client.resource<NodeObject>(NODES).get(name);
  /** Wait until the informer shows what the fake client holds for a node. */
  const settled = async (name: string): Promise<void> => {
    const rv = (await stored(name)).metadata.resourceVersion;
    await waitFor(() => nodes.indexer.get(name)?.metadata.resourceVersion === rv);
  };
  const settleAll = async (...names: string[]): Promise<void> => {
    for (const name of names) await settled(name);
  };
  const renew = async (name: string, when: number): Promise<void> => {
    const current = await t.client.resource<LeaseObject>(LEASES).get(name, { namespace: NODE_LEASE_NAMESPACE });
    const updated = await t.client.resource<LeaseObject>(LEASES).update({ ...current, spec: { ...current.spec, renewTime: lease(name, when).spec!.renewTime! } });
    await waitFor(() => leases.indexer.get(`${NODE_LEASE_NAMESPACE}/${name}`)?.metadata.resourceVersion === updated.metadata.resourceVersion);
  };

  afterEach(() => t?.stop());

  describe('health and taints', () => {
    beforeEach(() => setUp({ nodeMonitorGracePeriodMs: 40_000, nodeEvictionRate: 0.1 }));

    it('a node whose lease stops goes Unknown, gets the unreachable taints, and its pods go unready; it recovers', async () => {
      t.client.seed(NODES, [node('n1'), node('n2')]);
      t.client.seed(LEASES, [lease('n1', T0), lease('n2', T0)]);
      t.client.seed(PODS, [readyPod('web', 'n1'), readyPod('other', 'n2')]);
      await waitFor(() => nodes.indexer.size === 2 && leases.indexer.size === 2 && pods.indexer.size === 2);
      const first = await controller.monitor();
      assert.equal(first.requeueAfterMs, 5000, 'runs again after the monitor period');
      assert.deepEqual(t.client.actionsOf().map((a) => a.verb), [], 'healthy nodes: nothing to write');
      assert.deepEqual(
        t.events.map((e) => `${e.component} ${e.reason} ${e.message}`),
        ['node-controller RegisteredNode Registered Node n1 in Controller', 'node-controller RegisteredNode Registered Node n2 in Controller'],
      );

      clock = T0 + 30_000;
      await renew('n2', clock);
      await controller.monitor();
      assert.equal(t.client.actionsOf().length, 1, 'within the grace period: only the test renewed a lease');

      clock = T0 + 40_001;
      await renew('n2', clock);
      await controller.monitor();
      const n1 = await stored('n1');
      const ready = n1.status?.conditions?.find((c) => c.type === 'Ready');
      assert.equal(ready?.status, 'Unknown');
      assert.equal(ready?.reason, 'NodeStatusUnknown');
      assert.equal(ready?.message, 'Kubelet stopped posting node status.');
      assert.equal(ready?.lastHeartbeatTime, at(T0), 'the heartbeat is kept');
      assert.equal(n1.status?.conditions?.find((c) => c.type === 'MemoryPressure')?.status, 'Unknown');
      const never = n1.status?.conditions?.find((c) => c.type === 'DiskPressure');
      assert.equal(never?.reason, 'NodeStatusNeverUpdated');
      assert.equal(never?.message, 'Kubelet never posted node status.');
      assert.deepEqual(taintsOf(n1), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
      assert.ok(n1.spec?.taints?.every((taint: Taint) => taint.timeAdded === at(clock)));
      assert.deepEqual(taintsOf(await stored('n2')), []);
      const web = await t.client.resource<PodObject>(PODS).get('web', { namespace: 'default' });
      assert.equal(web.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
      const other = await t.client.resource<PodObject>(PODS).get('other', { namespace: 'default' });
      assert.equal(other.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
      assert.deepEqual(
        t.events.slice(2).map((e) => `${e.object.kind}/${e.object.name} ${e.type} ${e.reason} ${e.message}`),
        ['Node/n1 Normal NodeNotReady Node n1 status is now: NodeNotReady', 'Pod/web Warning NodeNotReady Node is not ready'],
      );

      // The kubelet is back: it renews its lease and posts Ready.
      await settleAll('n1');
      clock += 5_000;
      await renew('n1', clock);
      const back = node('n1', { heartbeat: clock });
      await t.client.resource<NodeObject>(NODES).updateStatus({ ...(await stored('n1')), status: back.status! });
      await settled('n1');
      await controller.monitor();
      assert.deepEqual(taintsOf(await stored('n1')), [], 'taints lifted once Ready');
    });

    it('Ready=False gives the not-ready taints; a later Unknown swaps the NoExecute taint at once', async () => {
      t.client.seed(NODES, [node('n1', { ready: 'False' }), node('n2')]);
      t.client.seed(LEASES, [lease('n1', T0), lease('n2', T0)]);
      await waitFor(() => nodes.indexer.size === 2 && leases.indexer.size === 2);
      await controller.monitor();
      assert.deepEqual(taintsOf(await stored('n1')), ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/not-ready:NoSchedule']);
      await settled('n1');
      // Spend n1's zone token, so the swap below cannot be a new rate-limited taint.
      clock = T0 + 41_000;
      await renew('n2', clock);
      await controller.monitor();
      assert.deepEqual(noExecute(await stored('n1')), ['node.kubernetes.io/unreachable']);
      assert.deepEqual(taintsOf(await stored('n1')), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    });

    it('a node that never posted status gets the startup grace period, then NodeStatusNeverUpdated', async () => {
      t.client.seed(NODES, [{ ...node('new', { conditions: false }), metadata: { name: 'new', creationTimestamp: at(T0) } }, node('n2')]);
      t.client.seed(LEASES, [lease('n2', T0)]);
      await waitFor(() => nodes.indexer.size === 2 && leases.indexer.size === 1);
      clock = T0 + 59_000;
      await renew('n2', clock);
      await controller.monitor();
      assert.equal((await stored('new')).status?.conditions, undefined, 'inside the 60 s startup grace');
      clock = T0 + 60_001;
      await renew('n2', clock);
      await controller.monitor();
      const ready = (await stored('new')).status?.conditions?.find((c) => c.type === 'Ready');
      assert.equal(ready?.status, 'Unknown');
      assert.equal(ready?.reason, 'NodeStatusNeverUpdated');
    });

    it('a write that fails is reported and skipped; the next pass finishes the work', async () => {
      t.client.seed(NODES, [node('n1'), node('n2')]);
      t.client.seed(LEASES, [lease('n2', T0)]);
      await waitFor(() => nodes.indexer.size === 2 && leases.indexer.size === 1);
      await controller.monitor();
      clock = T0 + 41_000;
      await renew('n2', clock);
      t.client.injectError('update', 'nodes/status', serviceUnavailable('try later'));
      assert.deepEqual(await controller.monitor(), { requeueAfterMs: 5000 }, 'the pass still asks for the next one');
      assert.deepEqual(failures, ['n1: try later']);
      assert.deepEqual(taintsOf(await stored('n2')), []);
      await controller.monitor();
      assert.equal((await stored('n1')).status?.conditions?.find((c) => c.type === 'Ready')?.status, 'Unknown');
    });

    it('a pod deleted while it is being marked unready is skipped; other pod errors are reported and retried next pass', async () => {
      t.client.seed(NODES, [node('n1'), node('n2')]);
      t.client.seed(LEASES, [lease('n2', T0)]);
      t.client.seed(PODS, [readyPod('gone', 'n1'), readyPod('kept', 'n1')]);
      await waitFor(() => nodes.indexer.size === 2 && leases.indexer.size === 1 && pods.indexer.size === 2);
      await controller.monitor();
      clock = T0 + 41_000;
      await renew('n2', clock);
      t.client.injectError('update', 'pods/status', notFound({ group: '', resource: 'pods' }, 'gone'));
      await controller.monitor();
      const unready = t.events.filter((e) => e.object.kind === 'Pod').map((e) => e.object.name);
      assert.equal(unready.length, 1, 'one pod marked (the other was gone)');
      await settleAll('n1');
      t.client.injectError('update', 'pods/status', serviceUnavailable('busy'));
      await waitFor(() => pods.indexer.list().some((p) => p.status?.conditions?.[0]?.status === 'False'));
      await controller.monitor();
      assert.deepEqual(failures, ['n1: busy']);
      await controller.monitor();
      for (const name of ['gone', 'kept']) {
        const p = await t.client.resource<PodObject>(PODS).get(name, { namespace: 'default' });
        assert.equal(p.status?.conditions?.[0]?.status, 'False');
      }
    });

    it('records RemovingNode when a node goes away', async () => {
      t.client.seed(NODES, [node('n1')]);
      await waitFor(() => nodes.indexer.size === 1);
      await controller.monitor();
      await t.client.resource(NODES).delete('n1');
      await waitFor(() => nodes.indexer.size === 0);
      await controller.monitor();
      assert.deepEqual(t.events.map((e) => e.reason), ['RegisteredNode', 'RemovingNode']);
      assert.equal(t.events[1]?.message, 'Removing Node n1 from Controller');
    });

    it('NoSchedule taints follow spec.unschedulable and the pressure conditions', async () => {
      const n = node('n1');
      n.spec = { unschedulable: true };
      (n.status!.conditions as { type: string; status: string }[])[1]!.status = 'True';
      t.client.seed(NODES, [n]);
      t.client.seed(LEASES, [lease('n1', T0)]);
      await waitFor(() => nodes.indexer.size === 1 && leases.indexer.size === 1);
      await controller.monitor();
      assert.deepEqual(taintsOf(await stored('n1')), ['node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/unschedulable:NoSchedule']);
    });
  });

  describe('eviction rate per zone', () => {
    const failing = async (healthy: string[], names: string[], zone = 'a'): Promise<void> => {
      t.client.seed(NODES, [...healthy, ...names].map((n) => node(n, { zone })));
      t.client.seed(LEASES, [...healthy, ...names].map((n) => lease(n, T0)));
      await waitFor(() => nodes.indexer.size === healthy.length + names.length && leases.indexer.size === healthy.length + names.length);
      await controller.monitor();
      clock = T0 + 41_000;
      for (const n of healthy) await renew(n, clock);
    };

    it('taints one failed node per token of the zone (--node-eviction-rate), telling the loop when the next token is due', async () => {
      await setUp({ nodeMonitorGracePeriodMs: 40_000, nodeEvictionRate: 1 });
      await failing(['h1', 'h2', 'h3'], ['f1', 'f2']);
      const result = await controller.monitor();
      const tainted = async (): Promise<string[]> => {
        const names: string[] = [];
        for (const n of ['f1', 'f2']) if (noExecute(await stored(n)).length > 0) names.push(n);
        return names;
      };
      assert.deepEqual(await tainted(), ['f1']);
      assert.equal(result.requeueAfterMs, 1000, 'the next token in one second');
      assert.equal(controller.zoneState(':\x00:a'), 'Normal');
      await settleAll('f1', 'f2');
      clock += 999;
      await controller.monitor();
      assert.deepEqual(await tainted(), ['f1']);
      clock += 1;
      await controller.monitor();
      assert.deepEqual(await tainted(), ['f1', 'f2']);
    });

    it('a partially disrupted small zone gets no NoExecute taints; a large one the secondary rate', async () => {
      await setUp({ nodeMonitorGracePeriodMs: 40_000, nodeEvictionRate: 1, secondaryNodeEvictionRate: 0.5, largeClusterSizeThreshold: 50 });
      await failing(['h1'], ['f1', 'f2', 'f3']);
      await controller.monitor();
      assert.equal(controller.zoneState(':\x00:a'), 'PartialDisruption');
      for (const n of ['f1', 'f2', 'f3']) {
        assert.deepEqual(noExecute(await stored(n)), []);
        assert.deepEqual(taintsOf(await stored(n)), ['node.kubernetes.io/unreachable:NoSchedule']);
      }
      t.stop();

      await setUp({ nodeMonitorGracePeriodMs: 40_000, nodeEvictionRate: 1, secondaryNodeEvictionRate: 0.5, largeClusterSizeThreshold: 3 });
      await failing(['h1'], ['f1', 'f2', 'f3']);
      const result = await controller.monitor();
      assert.equal(result.requeueAfterMs, 2000, 'secondary rate: one taint per 2 s');
      let count = 0;
      for (const n of ['f1', 'f2', 'f3']) count += noExecute(await stored(n)).length;
      assert.equal(count, 1);
    });

    it('when every zone is down it stops tainting (and lifts NoExecute taints) until a node is back', async () => {
      await setUp({ nodeMonitorGracePeriodMs: 40_000, nodeEvictionRate: 1 });
      t.client.seed(NODES, [node('a1', { zone: 'a' }), node('b1', { zone: 'b' }), node('b2', { zone: 'b' })]);
      t.client.seed(LEASES, ['a1', 'b1', 'b2'].map((n) => lease(n, T0)));
      await waitFor(() => nodes.indexer.size === 3 && leases.indexer.size === 3);
      await controller.monitor();
      clock = T0 + 41_000;
      await renew('b2', clock);
      await controller.monitor();
      assert.deepEqual(noExecute(await stored('a1')), ['node.kubernetes.io/unreachable'], 'zone a fully down, zone b not: a1 is tainted');
      assert.equal(controller.zoneState(':\x00:a'), 'FullDisruption');
      await settleAll('a1', 'b1', 'b2');
      clock = T0 + 90_000;
      await controller.monitor();
      for (const n of ['a1', 'b1', 'b2']) assert.deepEqual(noExecute(await stored(n)), [], `${n}: no NoExecute taint in full disruption`);
      assert.deepEqual(taintsOf(await stored('b2')), ['node.kubernetes.io/unreachable:NoSchedule']);
    });
  });

  it('runs as a controller: a node whose lease is not renewed goes Unknown and tainted within the short grace period', async () => {
    const tc = newTestContext({ options: { nodeMonitorGracePeriodMs: 150, nodeMonitorPeriodMs: 20, nodeEvictionRate: 1000 } });
    t = tc;
    tc.client.seed(NODES, [node('n1', { heartbeat: Date.now() }), node('n2', { heartbeat: Date.now() })]);
    tc.client.seed(LEASES, [lease('n1', Date.now()), lease('n2', Date.now())]);
    await nodeLifecycleController.start(tc.ctx);
    tc.start();
    const keepAlive = setInterval(() => {
      void tc.client
        .resource<LeaseObject>(LEASES)
        .get('n2', { namespace: NODE_LEASE_NAMESPACE })
        .then((l) => tc.client.resource<LeaseObject>(LEASES).update({ ...l, spec: { ...l.spec, renewTime: lease('n2', Date.now()).spec!.renewTime! } }))
        .catch(() => {});
    }, 20);
    try {
      await waitFor(async () => noExecute(await tc.client.resource<NodeObject>(NODES).get('n1')).length > 0, { timeoutMs: 5000 });
      assert.equal((await tc.client.resource<NodeObject>(NODES).get('n1')).status?.conditions?.[0]?.status, 'Unknown');
      assert.deepEqual(noExecute(await tc.client.resource<NodeObject>(NODES).get('n2')), []);
    } finally {
      clearInterval(keepAlive);
    }
  });
});
