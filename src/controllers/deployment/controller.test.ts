import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { defaultDeployment } from '../../api/apps/v1/defaults.js';
import { DEPLOYMENTS, PODS, REPLICA_SETS } from '../../client/rest/resources.js';
import type { FakeClient } from '../../client/testing/fake-client.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { startReplicaSetController } from '../replicaset/controller.js';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../util/types.js';
import { startDeploymentController, type DeploymentControllerOptions } from './controller.js';
import { startFakeKubelet, type FakeKubeletOptions } from './testing/fake-kubelet.js';

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

interface Cluster {
  readonly t: TestContext;
  readonly client: FakeClient;
}

/** Both controllers and a fake kubelet on one fake client. */
async function cluster(options: { kubelet?: FakeKubeletOptions; deployment?: DeploymentControllerOptions } = {}): Promise<Cluster> {
  const t = newTestContext();
  startReplicaSetController(t.ctx);
  startDeploymentController(t.ctx, options.deployment);
  t.start();
  const kubelet = startFakeKubelet(t.client, options.kubelet);
  stops.push(() => {
    kubelet.stop();
    t.stop();
  });
  await t.informers.waitForCacheSync();
  return { t, client: t.client };
}

function deployment(replicas: number, image: string, spec: Partial<NonNullable<DeploymentObject['spec']>> = {}): DeploymentObject {
  const d: DeploymentObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } },
      ...spec,
    },
  };
  defaultDeployment(d);
  return d;
}

const getDeployment = (c: Cluster) => c.client.resource<DeploymentObject>(DEPLOYMENTS).get('web', { namespace: 'ns' });
const replicaSets = async (c: Cluster) => (await c.client.resource<ReplicaSetObject>(REPLICA_SETS).list({ namespace: 'ns' })).items;
const livePods = async (c: Cluster) => (await c.client.resource<PodObject>(PODS).list({ namespace: 'ns' })).items.filter((p) => !p.metadata.deletionTimestamp);

/** kubectl rollout status's test: the rollout of the current generation is complete. */
async function rolledOut(c: Cluster): Promise<boolean> {
  const d = await getDeployment(c);
  const s = d.status ?? {};
  const replicas = d.spec?.replicas ?? 1;
  return (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && (s.updatedReplicas ?? 0) === replicas && (s.replicas ?? 0) === replicas && (s.availableReplicas ?? 0) === replicas;
}

const setImage = (c: Cluster, image: string) =>
  c.client.resource<DeploymentObject>(DEPLOYMENTS).patch('web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image, imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} }] } } } }, { namespace: 'ns' });

const imageOf = (rs: ReplicaSetObject) => rs.spec?.template?.spec?.containers[0]?.image;
const revisionOf = (o: { metadata: { annotations?: Record<string, string> | undefined } }) => o.metadata.annotations?.['deployment.kubernetes.io/revision'];
const conditions = (d: DeploymentObject) => Object.fromEntries((d.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason ?? ''}`]));

/** Watches pods and checks, at every event, the availability floor and the surge ceiling of a rolling update. */
async function watchRollingBounds(c: Cluster, minAvailable: number, maxTotal: number): Promise<{ violations: string[]; stop(): void }> {
  const pods = new Map<string, PodObject>();
  const violations: string[] = [];
  const list = await c.client.resource<PodObject>(PODS).list({ namespace: 'ns' });
  for (const p of list.items) pods.set(p.metadata.name ?? '', p);
  const stream = c.client.resource<PodObject>(PODS).watch({ namespace: 'ns', resourceVersion: list.metadata.resourceVersion ?? '' });
  void (async () => {
    for await (const event of stream) {
      const key = event.object.metadata.name ?? '';
      if (event.type === 'DELETED') pods.delete(key);
      else pods.set(key, event.object);
      const live = [...pods.values()].filter((p) => !p.metadata.deletionTimestamp);
      const available = live.filter((p) => p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')).length;
      if (available < minAvailable) violations.push(`${event.type} ${key}: ${available} available < ${minAvailable}`);
      if (live.length > maxTotal) violations.push(`${event.type} ${key}: ${live.length} pods > ${maxTotal}`);
    }
  })().catch(() => undefined);
  return { violations, stop: () => stream.cancel() };
}

describe('deployment controller', () => {
  it('creates a ReplicaSet by pod-template-hash with revision 1 and rolls out (status, conditions, Events)', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(3, 'nginx:1')]);
    await waitFor(() => rolledOut(c), { description: 'rolled out' });
    const [rs, ...more] = await replicaSets(c);
    assert.equal(more.length, 0);
    const hash = rs!.metadata.labels?.['pod-template-hash'] ?? '';
    assert.match(hash, /^[456789bcdf]+$/);
    assert.equal(rs!.metadata.name, `web-${hash}`);
    assert.deepEqual(rs!.spec?.selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
    assert.deepEqual(rs!.spec?.template?.metadata?.labels, { app: 'web', 'pod-template-hash': hash });
    assert.equal(rs!.metadata.ownerReferences?.[0]?.kind, 'Deployment');
    assert.deepEqual(rs!.metadata.annotations, {
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    const d = await getDeployment(c);
    assert.equal(revisionOf(d), '1');
    assert.deepEqual(conditions(d), { Available: 'True/MinimumReplicasAvailable', Progressing: 'True/NewReplicaSetAvailable' });
    assert.equal(d.status?.conditions?.find((x) => x.type === 'Progressing')?.message, `ReplicaSet "web-${hash}" has successfully progressed.`);
    assert.deepEqual([d.status?.readyReplicas, d.status?.unavailableReplicas ?? 0], [3, 0]);
    assert.ok(c.t.events.some((e) => e.component === 'deployment-controller' && e.reason === 'ScalingReplicaSet' && e.message === `Scaled up replica set web-${hash} from 0 to 3`));
    assert.equal(c.client.actionsOf('create', 'pods').length, 3);
  });

  it('scales: the ReplicaSet follows spec.replicas with upstream\'s ScalingReplicaSet messages', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(2, 'nginx:1')]);
    await waitFor(() => rolledOut(c));
    await c.client.resource(DEPLOYMENTS).patch('web', 'merge', { spec: { replicas: 5 } }, { namespace: 'ns' });
    await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).length === 5, { description: 'scaled to 5' });
    await c.client.resource(DEPLOYMENTS).patch('web', 'merge', { spec: { replicas: 1 } }, { namespace: 'ns' });
    await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).length === 1, { description: 'scaled to 1' });
    const name = (await replicaSets(c))[0]!.metadata.name;
    const messages = c.t.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message);
    assert.deepEqual(messages, [`Scaled up replica set ${name} from 0 to 2`, `Scaled up replica set ${name} from 2 to 5`, `Scaled down replica set ${name} from 5 to 1`]);
  });

  it('rolling update: never below replicas − maxUnavailable available nor above replicas + maxSurge pods, at every pod event', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(4, 'nginx:1', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } })]);
    await waitFor(() => rolledOut(c));
    const bounds = await watchRollingBounds(c, 3, 5);
    stops.push(bounds.stop);
    await setImage(c, 'nginx:2');
    await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).length === 4 && (await replicaSets(c)).length === 2, { description: 'rolled out to nginx:2', timeoutMs: 10_000 });
    assert.deepEqual(bounds.violations, []);
    const sets = await replicaSets(c);
    const byImage = Object.fromEntries(sets.map((rs) => [imageOf(rs), rs]));
    assert.equal(byImage['nginx:1']?.spec?.replicas, 0);
    assert.equal(byImage['nginx:2']?.spec?.replicas, 4);
    assert.deepEqual([revisionOf(byImage['nginx:1']!), revisionOf(byImage['nginx:2']!)], ['1', '2']);
    assert.equal(revisionOf(await getDeployment(c)), '2');
    for (const p of await livePods(c)) assert.equal(p.spec?.containers[0]?.image, 'nginx:2');
  });

  it('rolling update with percentages: 25% surge rounds up, 25% unavailable rounds down (10 replicas: ≤ 13 pods, ≥ 8 available)', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(10, 'nginx:1')]);
    await waitFor(() => rolledOut(c), { timeoutMs: 10_000 });
    const bounds = await watchRollingBounds(c, 8, 13);
    stops.push(bounds.stop);
    await setImage(c, 'nginx:2');
    await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).length === 10, { description: 'rolled out', timeoutMs: 10_000 });
    assert.deepEqual(bounds.violations, []);
  });

  for (const [surge, unavailable, minAvailable, maxTotal] of [[0, 1, 2, 3], [1, 0, 3, 4], ['0%', '50%', 2, 3]] as const) {
    it(`rolling update with maxSurge ${surge}, maxUnavailable ${unavailable} (3 replicas): ≥ ${minAvailable} available, ≤ ${maxTotal} pods`, async () => {
      const c = await cluster();
      c.client.seed(DEPLOYMENTS, [deployment(3, 'nginx:1', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } })]);
      await waitFor(() => rolledOut(c));
      const bounds = await watchRollingBounds(c, minAvailable, maxTotal);
      stops.push(bounds.stop);
      await setImage(c, 'nginx:2');
      await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).every((p) => p.spec?.containers[0]?.image === 'nginx:2'), { description: 'rolled out', timeoutMs: 10_000 });
      assert.deepEqual(bounds.violations, []);
    });
  }

  it('Recreate: the old pods are all gone before the first new one is created', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(3, 'nginx:1', { strategy: { type: 'Recreate' } })]);
    await waitFor(() => rolledOut(c));
    const pods = new Map<string, PodObject>();
    const overlaps: string[] = [];
    const stream = c.client.resource<PodObject>(PODS).watch({ namespace: 'ns' });
    stops.push(() => stream.cancel());
    void (async () => {
      for await (const e of stream) {
        if (e.type === 'DELETED') pods.delete(e.object.metadata.name ?? '');
        else pods.set(e.object.metadata.name ?? '', e.object);
        const images = new Set([...pods.values()].map((p) => p.spec?.containers[0]?.image));
        if (images.size > 1) overlaps.push(e.object.metadata.name ?? '');
      }
    })().catch(() => undefined);
    await setImage(c, 'nginx:2');
    await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).every((p) => p.spec?.containers[0]?.image === 'nginx:2'), { description: 'recreated' });
    assert.deepEqual(overlaps, []);
  });

  it('pause and resume: a paused Deployment does not roll out (DeploymentPaused) but still scales; resume rolls (DeploymentResumed)', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(2, 'nginx:1')]);
    await waitFor(() => rolledOut(c));
    await c.client.resource(DEPLOYMENTS).patch('web', 'merge', { spec: { paused: true } }, { namespace: 'ns' });
    await waitFor(async () => conditions(await getDeployment(c)).Progressing === 'Unknown/DeploymentPaused', { description: 'paused condition' });
    await setImage(c, 'nginx:2');
    await c.client.resource(DEPLOYMENTS).patch('web', 'merge', { spec: { replicas: 3 } }, { namespace: 'ns' });
    await waitFor(async () => (await livePods(c)).length === 3, { description: 'scaled while paused' });
    await waitFor(async () => (await getDeployment(c)).status?.observedGeneration === (await getDeployment(c)).metadata.generation);
    assert.equal((await replicaSets(c)).length, 1, 'no new ReplicaSet while paused');
    await c.client.resource(DEPLOYMENTS).patch('web', 'merge', { spec: { paused: false } }, { namespace: 'ns' });
    await waitFor(async () => (await rolledOut(c)) && (await replicaSets(c)).length === 2 && (await livePods(c)).every((p) => p.spec?.containers[0]?.image === 'nginx:2'), { description: 'resumed rollout' });
    assert.equal(conditions(await getDeployment(c)).Progressing, 'True/NewReplicaSetAvailable');
    const statusWrites = c.client.actionsOf('update', 'deployments/status').map((a) => (a.body as DeploymentObject).status?.conditions?.find((x) => x.type === 'Progressing')?.reason);
    assert.ok(statusWrites.includes('DeploymentResumed'));
  });

  it('rollback (kubectl rollout undo sets the old template): the old ReplicaSet is reused and takes the next revision', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(2, 'nginx:1')]);
    await waitFor(() => rolledOut(c));
    await setImage(c, 'nginx:2');
    await waitFor(async () => (await rolledOut(c)) && (await replicaSets(c)).length === 2);
    await setImage(c, 'nginx:1');
    await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).every((p) => p.spec?.containers[0]?.image === 'nginx:1'), { description: 'rolled back' });
    const sets = await replicaSets(c);
    assert.equal(sets.length, 2, 'no third ReplicaSet');
    const v1 = sets.find((rs) => imageOf(rs) === 'nginx:1')!;
    assert.equal(revisionOf(v1), '3');
    assert.equal(v1.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(revisionOf(await getDeployment(c)), '3');
  });

  it('revisionHistoryLimit: old ReplicaSets with no replicas beyond the limit are deleted, oldest revision first', async () => {
    const c = await cluster();
    c.client.seed(DEPLOYMENTS, [deployment(1, 'nginx:1', { revisionHistoryLimit: 1 })]);
    await waitFor(() => rolledOut(c));
    for (const image of ['nginx:2', 'nginx:3', 'nginx:4']) {
      await setImage(c, image);
      await waitFor(async () => (await rolledOut(c)) && (await livePods(c)).every((p) => p.spec?.containers[0]?.image === image), { description: `rolled to ${image}` });
    }
    await waitFor(async () => (await replicaSets(c)).length === 2, { description: 'history trimmed to 1 old set' });
    assert.deepEqual((await replicaSets(c)).map(imageOf).sort(), ['nginx:3', 'nginx:4']);
  });

  it('progress deadline: a rollout that makes no progress gets ProgressDeadlineExceeded', async () => {
    let offsetMs = 0;
    const c = await cluster({
      kubelet: { ready: (p) => p.spec?.containers[0]?.image !== 'broken' },
      deployment: { now: () => new Date(Date.now() + offsetMs) },
    });
    c.client.seed(DEPLOYMENTS, [deployment(2, 'nginx:1', { progressDeadlineSeconds: 30 })]);
    await waitFor(() => rolledOut(c));
    await setImage(c, 'broken');
    await waitFor(async () => conditions(await getDeployment(c)).Progressing === 'True/ReplicaSetUpdated', { description: 'progressing' });
    await waitFor(async () => (await getDeployment(c)).status?.updatedReplicas === 1, { description: 'one broken pod' });
    offsetMs = 31_000;
    // Any event makes the controller look again (the real one requeues itself at the deadline).
    await c.client.resource(DEPLOYMENTS).patch('web', 'merge', { metadata: { labels: { poke: '1' } } }, { namespace: 'ns' });
    await waitFor(async () => conditions(await getDeployment(c)).Progressing === 'False/ProgressDeadlineExceeded', { description: 'deadline exceeded' });
    const d = await getDeployment(c);
    const name = (await replicaSets(c)).find((rs) => imageOf(rs) === 'broken')?.metadata.name;
    assert.equal(d.status?.conditions?.find((x) => x.type === 'Progressing')?.message, `ReplicaSet "${name}" has timed out progressing.`);
    assert.equal(conditions(d).Available, 'True/MinimumReplicasAvailable');
  });

  it('adopts an orphan ReplicaSet with the same template instead of creating another', async () => {
    const c = await cluster();
    const d = deployment(2, 'nginx:1');
    const [orphan] = c.client.seed(REPLICA_SETS, [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web-orphan', namespace: 'ns', labels: { app: 'web' } },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: d.spec!.template },
      } as ReplicaSetObject,
    ]);
    c.client.seed(DEPLOYMENTS, [d]);
    await waitFor(() => rolledOut(c), { description: 'rolled out with the adopted set' });
    const sets = await replicaSets(c);
    assert.deepEqual(sets.map((rs) => rs.metadata.name), ['web-orphan']);
    assert.equal(sets[0]!.metadata.ownerReferences?.[0]?.kind, 'Deployment');
    assert.equal(sets[0]!.metadata.uid, orphan!.metadata.uid);
  });
});
