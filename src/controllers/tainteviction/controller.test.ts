import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import type { SharedIndexInformer } from '../../client/cache/interfaces.js';
import { NODES, PODS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { notFound, serviceUnavailable } from '../../machinery/status.js';
import { ensurePodNodeNameIndex, type NodeObject } from '../nodelifecycle/node-taints.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { TaintEvictionController, taintEvictionController } from './controller.js';

type PodObject = KubeObject & Pod;

const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' };
const tolerate = (seconds?: number): Toleration => ({
  key: 'node.kubernetes.io/unreachable',
  operator: 'Exists',
  effect: 'NoExecute',
  ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}),
});
const pod = (name: string, tolerations: Toleration[], nodeName = 'n1'): PodObject => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }], tolerations },
  status: { phase: 'Running' },
});

describe('taint eviction controller', () => {
  let t: TestContext;
  afterEach(() => t?.stop());

  async function setUp(): Promise<{ controller: TaintEvictionController; clock: { now: number }; nodes: SharedIndexInformer<NodeObject>; pods: SharedIndexInformer<PodObject> }> {
    t = newTestContext();
    const nodes = t.ctx.informers.informerFor<NodeObject>(NODES);
    const pods = t.ctx.informers.informerFor<PodObject>(PODS);
    ensurePodNodeNameIndex(pods);
    const clock = { now: 1_000_000 };
    const controller = new TaintEvictionController({ nodes: nodes.indexer, pods: pods.indexer, client: t.client, recorder: t.ctx.events.recorderFor('taint-eviction-controller'), now: () => clock.now });
    t.start();
    await t.ctx.informers.waitForCacheSync();
    return { controller, clock, nodes, pods };
  }

  const deleted = (): string[] => t.client.actionsOf('delete', 'pods').map((a) => a.name).sort();

  it('deletes at once a pod that does not tolerate the taint; after tolerationSeconds one that does; never one that tolerates forever', async () => {
    const { controller, clock, nodes, pods } = await setUp();
    t.client.seed(NODES, [{ metadata: { name: 'n1' }, spec: { taints: [unreachable] } }]);
    t.client.seed(PODS, [pod('bare', []), pod('five', [tolerate(5)]), pod('forever', [tolerate()]), pod('elsewhere', [], 'n2'), pod('unbound', [], '')]);
    await waitFor(() => nodes.indexer.size === 1 && pods.indexer.size === 5);

    assert.equal(await controller.reconcile('default/bare'), undefined);
    assert.deepEqual(await controller.reconcile('default/five'), { requeueAfterMs: 5000 });
    assert.equal(await controller.reconcile('default/forever'), undefined);
    assert.equal(await controller.reconcile('default/elsewhere'), undefined);
    assert.equal(await controller.reconcile('default/unbound'), undefined);
    assert.deepEqual(deleted(), ['bare']);
    const bare = t.client.actionsOf('update', 'pods').find((a) => a.name === 'bare');
    const condition = (bare?.body as PodObject).status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.equal(condition?.reason, 'DeletionByTaintManager');
    assert.equal(condition?.message, 'Taint manager: deleting due to NoExecute taint');

    clock.now += 4_000;
    assert.deepEqual(await controller.reconcile('default/five'), { requeueAfterMs: 1000 }, 'the timer runs from when the pod was first seen');
    clock.now += 1_000;
    await controller.reconcile('default/five');
    assert.deepEqual(deleted(), ['bare', 'five']);
    assert.deepEqual(
      t.events.map((e) => `${e.component} ${e.reason} ${e.message}`),
      [
        'taint-eviction-controller TaintManagerEviction Marking for deletion Pod default/bare',
        'taint-eviction-controller TaintManagerEviction Marking for deletion Pod default/five',
      ],
    );
  });

  it('cancels a scheduled deletion when the taint goes, with an Event', async () => {
    const { controller, clock, nodes, pods } = await setUp();
    t.client.seed(NODES, [{ metadata: { name: 'n1' }, spec: { taints: [unreachable] } }]);
    t.client.seed(PODS, [pod('five', [tolerate(5)])]);
    await waitFor(() => nodes.indexer.size === 1 && pods.indexer.size === 1);
    await controller.reconcile('default/five');
    const n1 = await t.client.resource<NodeObject>(NODES).get('n1');
    await t.client.resource<NodeObject>(NODES).update({ ...n1, spec: {} });
    await waitFor(() => (nodes.indexer.get('n1')?.spec?.taints ?? []).length === 0);
    clock.now += 10_000;
    assert.equal(await controller.reconcile('default/five'), undefined);
    assert.deepEqual(deleted(), []);
    assert.deepEqual(t.events.map((e) => e.message), ['Cancelling deletion of Pod default/five']);
  });

  it('a failed delete is retried (the error reaches the loop); a pod already gone is fine', async () => {
    const { controller, nodes, pods } = await setUp();
    t.client.seed(NODES, [{ metadata: { name: 'n1' }, spec: { taints: [unreachable] } }]);
    t.client.seed(PODS, [pod('bare', [])]);
    await waitFor(() => nodes.indexer.size === 1 && pods.indexer.size === 1);
    t.client.injectError('delete', 'pods', serviceUnavailable('try later'));
    await assert.rejects(controller.reconcile('default/bare'), /try later/);
    t.client.injectError('update', 'pods/status', serviceUnavailable('gone?'));
    await assert.rejects(controller.reconcile('default/bare'), /gone\?/);
    t.client.injectError('delete', 'pods', notFound({ group: '', resource: 'pods' }, 'bare'));
    assert.equal(await controller.reconcile('default/bare'), undefined, 'deleted meanwhile: nothing left to do');
    await controller.reconcile('default/bare');
    assert.deepEqual(deleted(), ['bare', 'bare', 'bare']);
  });

  it('runs as a controller: a taint added to a node evicts its pods after their tolerationSeconds', async () => {
    t = newTestContext();
    t.client.seed(NODES, [{ metadata: { name: 'n1' }, spec: {} }]);
    t.client.seed(PODS, [pod('bare', []), pod('one', [tolerate(1)]), pod('forever', [tolerate()])]);
    await taintEvictionController.start(t.ctx);
    t.start();
    await t.ctx.informers.waitForCacheSync();
    const n1 = await t.client.resource<NodeObject>(NODES).get('n1');
    await t.client.resource<NodeObject>(NODES).update({ ...n1, spec: { taints: [unreachable] } });
    await waitFor(() => deleted().includes('bare'));
    assert.ok(!deleted().includes('one'), 'one tolerates the taint for a second');
    await waitFor(() => deleted().includes('one'), { timeoutMs: 5000 });
    assert.deepEqual(deleted(), ['bare', 'one']);
  });
});
