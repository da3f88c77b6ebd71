/**
 * A node whose lease stops gets its pods evicted and recreated elsewhere, end
 * to end: a real API server and `k8ts controller-manager` (node lifecycle,
 * taint eviction, ReplicaSet, Deployment and garbage collector, short timers
 * through upstream's flags). The test renews the nodes' Leases and stands in
 * for the scheduler and the kubelets (testing/node-stand-in.ts).
 *
 * As upstream: the evicted pods of the unreachable node stay Terminating (no
 * kubelet finishes their deletion), the ReplicaSet no longer counts them and
 * creates replacements at once, and when the node's kubelet comes back it
 * finishes the deletions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Node, Toleration } from 'kubernetes-types/core/v1.js';
import type { HttpClient } from '../../../src/client/rest/http-client.js';
import { DEPLOYMENTS, NODES, PODS, REPLICA_SETS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../../../src/controllers/util/types.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { startControlPlane, type ControlPlane } from './testing/control-plane.js';
import { startNodeHeartbeats, type NodeHeartbeats } from './testing/node-heartbeats.js';
import { startNodeStandIn, type NodeStandIn } from './testing/node-stand-in.js';

type NodeObject = KubeObject & Node;

const NS = 'default';
const UNREACHABLE = 'node.kubernetes.io/unreachable';
const NOT_READY = 'node.kubernetes.io/not-ready';
const isReady = (p: PodObject): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Tolerate the node failure taints for a second only, so that eviction is quick (DefaultTolerationSeconds would give 300 s). */
const briefTolerations: Toleration[] = [UNREACHABLE, NOT_READY].map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }));

describe('node failure recovery: the pods of a node whose lease stops are recreated elsewhere (real API server and controller manager)', { timeout: 180_000 }, () => {
  let plane: ControlPlane;
  let admin: HttpClient;
  let standIn: NodeStandIn;
  let heartbeats: NodeHeartbeats | undefined;
  /** The pods of the Deployment while node-a ran them. */
  let originals: string[] = [];

  const nodes = () => admin.resource<NodeObject>(NODES);
  const pods = () => admin.resource<PodObject>(PODS);
  const node = (name: string) => nodes().get(name);
  const webPods = async (): Promise<PodObject[]> => (await pods().list({ namespace: NS, labelSelector: 'app=web' })).items;
  const livePods = async (): Promise<PodObject[]> => (await webPods()).filter((p) => !p.metadata.deletionTimestamp);
  const deployment = () => admin.resource<DeploymentObject>(DEPLOYMENTS).get('web', { namespace: NS });
  const availableEverywhere = (d: DeploymentObject): boolean =>
    d.status?.observedGeneration === d.metadata.generation &&
    d.status?.availableReplicas === 3 &&
    d.status?.readyReplicas === 3 &&
    d.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';

  before(async () => {
    plane = await startControlPlane({
      name: 'node-failure',
      managerArgs: [
        '--leader-elect=false',
        '--controllers=nodelifecycle,taint-eviction-controller,replicaset,deployment,garbage-collector',
        '--node-monitor-grace-period=2s',
        '--node-monitor-period=200ms',
        '--node-eviction-rate=100',
      ],
    });
    admin = plane.admin;
    heartbeats = await startNodeHeartbeats(admin, ['node-a', 'node-b']);
    standIn = startNodeStandIn({ client: admin, namespace: NS, running: ['node-a', 'node-b'], scheduleTo: 'node-a' });
  });

  after(async () => {
    heartbeats?.close();
    standIn?.stop();
    await plane?.stop();
  });

  it('a Deployment of 3 replicas becomes available with all its pods on node-a', async () => {
    await admin.resource<DeploymentObject>(DEPLOYMENTS).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }], tolerations: briefTolerations } },
      },
    });
    await waitFor(async () => availableEverywhere(await deployment()), { timeoutMs: 30_000, description: 'the Deployment is available' });
    const running = await webPods();
    assert.equal(running.length, 3);
    assert.deepEqual(running.map((p) => p.spec?.nodeName), ['node-a', 'node-a', 'node-a']);
    assert.ok(running.every(isReady));
    originals = running.map((p) => p.metadata.name ?? '').sort();
    assert.deepEqual(((await node('node-a')).spec?.taints ?? []), [], 'node-a is healthy');
  });

  it('node-a stops (no lease renewal, no kubelet): Ready=Unknown, the unreachable NoExecute taint, its pods evicted and left Terminating', async () => {
    standIn.stopKubelet('node-a');
    standIn.scheduleTo('node-b');
    heartbeats!.stop('node-a');
    await waitFor(async () => (await node('node-a')).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown', {
      timeoutMs: 20_000,
      description: 'node-a is Ready=Unknown',
    });
    assert.equal((await node('node-a')).status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'NodeStatusUnknown');
    await waitFor(async () => ((await node('node-a')).spec?.taints ?? []).some((t) => t.key === UNREACHABLE && t.effect === 'NoExecute'), {
      timeoutMs: 10_000,
      description: 'node-a has the unreachable NoExecute taint',
    });
    assert.equal((await node('node-b')).status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True', 'node-b is healthy');
    assert.deepEqual((await node('node-b')).spec?.taints ?? [], []);
    const evicted = async (): Promise<PodObject[]> => (await webPods()).filter((p) => originals.includes(p.metadata.name ?? '') && p.metadata.deletionTimestamp !== undefined);
    await waitFor(async () => (await evicted()).length === 3, { timeoutMs: 15_000, description: "node-a's pods are evicted" });
    for (const p of await evicted()) {
      assert.equal(p.spec?.nodeName, 'node-a');
      assert.equal(p.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager', p.metadata.name);
    }
  });

  it('the ReplicaSet creates 3 replacements, bound to node-b; the Deployment is available again with no extra pods', async () => {
    await waitFor(
      async () => {
        const live = await livePods();
        return live.length === 3 && live.every((p) => p.spec?.nodeName === 'node-b' && isReady(p)) && availableEverywhere(await deployment());
      },
      { timeoutMs: 30_000, description: '3 ready pods on node-b and the Deployment available' },
    );
    const live = await livePods();
    assert.ok(live.every((p) => !originals.includes(p.metadata.name ?? '')), 'replacements, not the evicted pods');
    const terminating = (await webPods()).filter((p) => p.metadata.deletionTimestamp !== undefined).map((p) => p.metadata.name ?? '');
    assert.deepEqual(terminating.sort(), originals, 'the evicted pods stay Terminating while node-a is unreachable');
    const replicaSets = (await admin.resource<ReplicaSetObject>(REPLICA_SETS).list({ namespace: NS, labelSelector: 'app=web' })).items;
    assert.equal(replicaSets.length, 1, 'the same ReplicaSet, no rollout');
    assert.equal(replicaSets[0]?.status?.replicas, 3, 'Terminating pods are not counted');
    assert.equal(standIn.seen.size, 6, 'exactly 3 replacements were created');
    assert.deepEqual(standIn.errors, []);
  });

  it('when node-a comes back its kubelet finishes the evicted pods; the Deployment keeps its 3 pods on node-b', async () => {
    await heartbeats!.resume('node-a');
    await standIn.startKubelet('node-a');
    await waitFor(async () => (await webPods()).length === 3, { timeoutMs: 15_000, description: 'the evicted pods are gone' });
    await waitFor(async () => ((await node('node-a')).spec?.taints ?? []).length === 0, { timeoutMs: 15_000, description: "node-a's taints are lifted" });
    const remaining = await webPods();
    assert.ok(remaining.every((p) => p.spec?.nodeName === 'node-b' && isReady(p) && !p.metadata.deletionTimestamp));
    assert.ok(availableEverywhere(await deployment()));
    assert.equal(standIn.seen.size, 6, 'nothing was recreated when the evicted pods went away');
    assert.deepEqual(standIn.errors, []);
  });
});
