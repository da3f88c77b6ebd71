/**
 * Deployments end to end: a real k8ts API server and controller manager
 * (running the deployment and ReplicaSet controllers), real kubectl 1.32, and
 * a tiny stand-in for the scheduler and kubelet that binds pods to a fake Node
 * and marks them Running and Ready through the API. No node lifecycle
 * controller: the fake Node sends no heartbeats, and once its startup grace
 * period passed that controller would mark the pods not Ready.
 * create, scale, rollout status, set image, history, undo, restart,
 * pause/resume, and a deleted pod replaced.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NODES, PODS, REPLICA_SETS } from '../../../src/client/rest/resources.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startFakeKubelet, type FakeKubelet } from '../../../src/controllers/deployment/testing/fake-kubelet.js';
import type { PodObject, ReplicaSetObject } from '../../../src/controllers/util/types.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

const NS = 'default';
const NODE = 'fake-node';

describe('deployments with kubectl 1.32 against k8ts', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let client: HttpClient;
  let kubelet: FakeKubelet;
  let kubectl: Kubectl;
  const kubeletErrors: unknown[] = [];

  before(async () => {
    cluster = await startLeanCluster('deployment', { controllerManagerArgs: ['--controllers=deployment,replicaset'] });
    client = newHttpClient(restConfigFromKubeconfig(cluster.kubeconfig));
    await client.resource(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    kubelet = startFakeKubelet(client, { namespace: NS, nodeName: NODE, ready: (p) => p.spec?.containers[0]?.image !== 'broken', onError: (e) => kubeletErrors.push(e) });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
  });

  after(async () => {
    kubelet?.stop();
    await cluster?.stop();
  });

  const pods = async (): Promise<PodObject[]> => (await client.resource<PodObject>(PODS).list({ namespace: NS, labelSelector: 'app=web' })).items;
  const livePods = async (): Promise<PodObject[]> => (await pods()).filter((p) => !p.metadata.deletionTimestamp);
  const replicaSets = async (): Promise<ReplicaSetObject[]> => (await client.resource<ReplicaSetObject>(REPLICA_SETS).list({ namespace: NS, labelSelector: 'app=web' })).items;
  const rolloutStatus = () => kubectl.ok('rollout', 'status', 'deployment/web', '--timeout=90s');
  /** Watches the pods from now on and checks, at every event, the ready floor and the pod ceiling of a rolling update. */
  const watchRollingBounds = async (minReady: number, maxPods: number): Promise<{ violations: string[]; events: number; stop(): void }> => {
    const current = new Map<string, PodObject>();
    const list = await client.resource<PodObject>(PODS).list({ namespace: NS, labelSelector: 'app=web' });
    for (const p of list.items) current.set(p.metadata.name ?? '', p);
    const stream = client.resource<PodObject>(PODS).watch({ namespace: NS, labelSelector: 'app=web', resourceVersion: list.metadata.resourceVersion ?? '' });
    const result = { violations: [] as string[], events: 0, stop: () => stream.cancel() };
    void (async () => {
      for await (const event of stream) {
        result.events++;
        const name = event.object.metadata.name ?? '';
        if (event.type === 'DELETED') current.delete(name);
        else current.set(name, event.object);
        const live = [...current.values()].filter((p) => !p.metadata.deletionTimestamp);
        const ready = live.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
        if (ready < minReady) result.violations.push(`${event.type} ${name}: ${ready} ready < ${minReady}`);
        if (live.length > maxPods) result.violations.push(`${event.type} ${name}: ${live.length} pods > ${maxPods}`);
      }
    })().catch(() => undefined);
    return result;
  };
  const images = async (): Promise<string[]> => [...new Set((await livePods()).map((p) => p.spec?.containers[0]?.image ?? ''))];

  it('kubectl create deployment: pods are created, bound and ready; rollout status finishes', async () => {
    assert.equal(await kubectl.ok('create', 'deployment', 'web', '--image=nginx:1', '--replicas=3'), 'deployment.apps/web created\n');
    assert.match(await rolloutStatus(), /deployment "web" successfully rolled out/);
    assert.equal((await livePods()).length, 3);
    const [rs] = await replicaSets();
    assert.equal(rs?.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    const ready = await kubectl.ok('get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}/{.status.availableReplicas}/{.status.updatedReplicas}');
    assert.equal(ready, '3/3/3');
  });

  it('kubectl scale: up and down', async () => {
    await kubectl.ok('scale', 'deployment/web', '--replicas=5');
    await rolloutStatus();
    await waitFor(async () => (await livePods()).length === 5, { timeoutMs: 30_000, description: '5 pods' });
    await kubectl.ok('scale', 'deployment/web', '--replicas=2');
    await rolloutStatus();
    await waitFor(async () => (await livePods()).length === 2, { timeoutMs: 30_000, description: '2 pods' });
    const events = await kubectl.ok('get', 'events', '--field-selector', 'involvedObject.kind=Deployment,involvedObject.name=web', '-o', 'jsonpath={range .items[*]}{.reason}:{.message}{"\\n"}{end}');
    assert.match(events, /ScalingReplicaSet:Scaled up replica set web-[a-z0-9]+ from 3 to 5/);
    assert.match(events, /ScalingReplicaSet:Scaled down replica set web-[a-z0-9]+ from 5 to 2/);
  });

  it('kubectl set image + rollout status: a rolling update to revision 2, never below replicas − maxUnavailable ready pods at any watch event', async () => {
    await kubectl.ok('scale', 'deployment/web', '--replicas=4');
    await rolloutStatus();
    await waitFor(async () => (await livePods()).length === 4, { timeoutMs: 30_000, description: '4 pods' });
    // 4 replicas, 25%/25%: at least 3 ready, at most 5 pods at every step.
    const bounds = await watchRollingBounds(3, 5);
    try {
      await kubectl.ok('set', 'image', 'deployment/web', 'nginx=nginx:2');
      assert.match(await rolloutStatus(), /successfully rolled out/);
      await waitFor(async () => (await images()).join() === 'nginx:2' && (await livePods()).length === 4, { timeoutMs: 30_000, description: 'all pods on nginx:2' });
    } finally {
      bounds.stop();
    }
    assert.deepEqual(bounds.violations, []);
    assert.ok(bounds.events > 8, `the check saw the rollout (${bounds.events} events)`);
    assert.equal((await replicaSets()).length, 2);
    await kubectl.ok('scale', 'deployment/web', '--replicas=2');
    await rolloutStatus();
    await waitFor(async () => (await livePods()).length === 2, { timeoutMs: 30_000, description: '2 pods' });
    const describe = await kubectl.ok('describe', 'deployment', 'web');
    assert.match(describe, /ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set web-[a-z0-9]+ from 0 to 1/);
  });

  it('kubectl rollout history lists both revisions; undo rolls back to revision 1 as revision 3', async () => {
    const history = await kubectl.ok('rollout', 'history', 'deployment/web');
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    assert.match(await kubectl.ok('rollout', 'undo', 'deployment/web'), /deployment.apps\/web rolled back/);
    await rolloutStatus();
    await waitFor(async () => (await images()).join() === 'nginx:1', { timeoutMs: 30_000, description: 'all pods back on nginx:1' });
    assert.equal((await replicaSets()).length, 2, 'the old ReplicaSet is reused');
    assert.match(await kubectl.ok('rollout', 'history', 'deployment/web'), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
    const revision2 = await kubectl.ok('rollout', 'history', 'deployment/web', '--revision=3');
    assert.match(revision2, /Image:\s+nginx:1/);
  });

  it('kubectl rollout restart: new pods from a new ReplicaSet', async () => {
    const before = new Set((await livePods()).map((p) => p.metadata.name));
    assert.match(await kubectl.ok('rollout', 'restart', 'deployment/web'), /deployment.apps\/web restarted/);
    await rolloutStatus();
    await waitFor(async () => {
      const now = await livePods();
      return now.length === 2 && now.every((p) => !before.has(p.metadata.name));
    }, { timeoutMs: 30_000, description: 'every pod replaced' });
    assert.equal((await replicaSets()).length, 3);
  });

  it('kubectl rollout pause/resume: no rollout while paused, it happens on resume', async () => {
    assert.match(await kubectl.ok('rollout', 'pause', 'deployment/web'), /deployment.apps\/web paused/);
    await kubectl.ok('set', 'image', 'deployment/web', 'nginx=nginx:3');
    await waitFor(async () => (await kubectl.ok('get', 'deployment', 'web', '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}')) === 'DeploymentPaused', { timeoutMs: 30_000, description: 'DeploymentPaused' });
    assert.equal((await replicaSets()).length, 3, 'no new ReplicaSet while paused');
    assert.notEqual((await images()).join(), 'nginx:3');
    assert.match(await kubectl.ok('rollout', 'resume', 'deployment/web'), /deployment.apps\/web resumed/);
    await rolloutStatus();
    await waitFor(async () => (await images()).join() === 'nginx:3', { timeoutMs: 30_000, description: 'all pods on nginx:3' });
  });

  it('progressDeadlineSeconds: a rollout whose pods never get ready fails kubectl rollout status with upstream\'s message', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'slow', namespace: NS },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'slow' } },
        template: { metadata: { labels: { app: 'slow' } }, spec: { containers: [{ name: 'main', image: 'nginx:1' }] } },
      },
    });
    await withStdin(kubectl, cluster.kubeconfig, manifest).ok('apply', '-f', '-');
    await kubectl.ok('rollout', 'status', 'deployment/slow', '--timeout=90s');
    // The broken rollout first makes what progress it can (its one surge pod, which never gets ready); only then a
    // 2 s deadline, so that no late progress on a busy machine can reset it (progress restarts the deadline, as upstream).
    await kubectl.ok('patch', 'deployment/slow', '-p', JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'main', image: 'broken' }] } } } }));
    await waitFor(async () => (await kubectl.ok('get', 'deployment', 'slow', '-o', 'jsonpath={.status.updatedReplicas}')) === '1', { timeoutMs: 30_000, description: 'the surge pod of the broken template' });
    await kubectl.ok('patch', 'deployment/slow', '-p', JSON.stringify({ spec: { progressDeadlineSeconds: 2 } }));
    // The controller notices the deadline by itself (it requeues the Deployment for it): nothing else changes.
    const result = await kubectl('rollout', 'status', 'deployment/slow', '--timeout=90s');
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /error: deployment "slow" exceeded its progress deadline/);
    const reason = await kubectl.ok('get', 'deployment', 'slow', '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}/{.status.conditions[?(@.type=="Available")].status}');
    assert.equal(reason, 'ProgressDeadlineExceeded/True', 'the old pods keep it available');
    await kubectl.ok('delete', 'deployment', 'slow');
  });

  it('a deleted pod is replaced', async () => {
    const [victim] = await livePods();
    await kubectl.ok('delete', 'pod', victim!.metadata.name ?? '', '--wait=true');
    await waitFor(async () => {
      const now = await livePods();
      return now.length === 2 && now.every((p) => p.metadata.name !== victim!.metadata.name);
    }, { timeoutMs: 30_000, description: 'a replacement pod' });
    await rolloutStatus();
    assert.deepEqual(kubeletErrors.filter((e) => !(e instanceof Error && /not found|conflict|modified/i.test(e.message))), []);
  });
});
