/**
 * Kill the controller manager mid-rollout and start another: a real API
 * server and real `k8ts controller-manager` processes on loopback, with short
 * leader-election timers. Manager A leads and starts a rolling update, which a
 * readiness gate holds part-way; A gets SIGKILL (so it cannot release the
 * Lease); manager B takes the Lease once it expires and finishes the rollout.
 * A ReplicaSets watch opened before the Deployment exists checks, at every
 * event, that the ReplicaSets' replicas never add up to more than
 * replicas + maxSurge, and a pods watch counts every pod created: exactly the
 * pods the rollout needed, none twice.
 *
 * The ceiling is checked on the ReplicaSets' spec.replicas, not on live pods,
 * because that is what a rolling update guarantees (upstream's as ours): the
 * new ReplicaSet's controller may create its pod before the old one's has
 * marked the pod it scales down, so live pods can exceed the ceiling by one
 * for a moment.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LeaseObject } from '../../../src/client/leader-election/leader-elector.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { DEPLOYMENTS, LEASES, NODES, PODS, REPLICA_SETS } from '../../../src/client/rest/resources.js';
import type { WatchStream } from '../../../src/client/rest/interface.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startFakeKubelet, type FakeKubelet } from '../../../src/controllers/deployment/testing/fake-kubelet.js';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../../../src/controllers/util/types.js';
import { isNotFound } from '../../../src/machinery/status.js';
import { newKubectl } from '../testing/kubectl.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { startReadinessGate, type ReadinessGate } from './testing/readiness-gate.js';

const NS = 'default';
const NODE = 'fake-node';
const REPLICAS = 6;
const MAX_SURGE = 1;
const OLD_IMAGE = 'nginx:1';
const NEW_IMAGE = 'nginx:2';
/** New pods that may become Ready before the gate opens: the rollout then rests at 4 new (2 ready) and 3 old pods. */
const NEW_PODS_READY_BEFORE_KILL = 2;
const LEADER_ELECTION = ['--leader-elect=true', '--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=1s'];
const HASH = 'pod-template-hash';

interface Manager {
  readonly process: K8tsProcess;
  readonly identity: string;
}

/** What a pods watch saw: every pod created. */
interface PodTally {
  /** Names of ADDED pods, in order, with their pod-template-hash and image. */
  readonly added: { name: string; hash: string; image: string }[];
  readonly violations: string[];
  ended: boolean;
}

/** What a ReplicaSets watch saw: the sum of their spec.replicas at every event. */
interface ReplicaTally {
  maxTotal: number;
  readonly violations: string[];
  ended: boolean;
}

describe('controller manager hand-over in the middle of a rollout', { timeout: 240_000 }, () => {
  let root: string;
  let apiserver: K8tsProcess;
  let adminKubeconfig: string;
  let cmKubeconfig: string;
  let admin: HttpClient;
  let kubelet: FakeKubelet | undefined;
  let gate: ReadinessGate | undefined;
  let podWatch: WatchStream<PodObject> | undefined;
  let replicaSetWatch: WatchStream<ReplicaSetObject> | undefined;
  const kubeletErrors: unknown[] = [];
  const managers: K8tsProcess[] = [];

  const startManager = async (): Promise<Manager> => {
    const p = startK8ts(['controller-manager', '--kubeconfig', cmKubeconfig, '--secure-port', '0', '--controllers=deployment,replicaset,serviceaccount', ...LEADER_ELECTION]);
    managers.push(p);
    await p.waitForLine(/^controller-manager: serving \/healthz and \/metrics on /, 60_000);
    const idLine = await p.waitForLine(/^controller-manager: leader election identity /, 10_000);
    return { process: p, identity: /identity (\S+) on lease/.exec(idLine)![1]! };
  };
  const lease = async (): Promise<LeaseObject | undefined> => {
    try {
      return await admin.resource<LeaseObject>(LEASES).get('kube-controller-manager', { namespace: 'kube-system' });
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const deployment = (): Promise<DeploymentObject> => admin.resource<DeploymentObject>(DEPLOYMENTS).get('web', { namespace: NS });
  const replicaSetWith = async (image: string): Promise<ReplicaSetObject | undefined> =>
    (await admin.resource<ReplicaSetObject>(REPLICA_SETS).list({ namespace: NS, labelSelector: 'app=web' })).items.find(
      (rs) => rs.spec?.template?.spec?.containers[0]?.image === image,
    );
  /** Opens a pods watch (list, then watch from its resourceVersion) that records every pod added. */
  const tallyPods = async (): Promise<PodTally> => {
    const pods = admin.resource<PodObject>(PODS);
    const list = await pods.list({ namespace: NS, labelSelector: 'app=web' });
    const tally: PodTally = { added: [], violations: [], ended: false };
    podWatch = pods.watch({ namespace: NS, labelSelector: 'app=web', resourceVersion: list.metadata.resourceVersion ?? '' });
    const stream = podWatch;
    void (async () => {
      try {
        for await (const event of stream) {
          if (event.type !== 'ADDED') continue;
          const name = event.object.metadata.name ?? '';
          tally.added.push({ name, hash: event.object.metadata.labels?.[HASH] ?? '', image: event.object.spec?.containers[0]?.image ?? '' });
        }
      } finally {
        tally.ended = true;
      }
    })().catch((e: unknown) => tally.violations.push(`the pods watch failed: ${String(e)}`));
    return tally;
  };

  /** Opens a ReplicaSets watch that checks, at every event, that their spec.replicas add up to at most the ceiling. */
  const tallyReplicaSets = async (ceiling: number): Promise<ReplicaTally> => {
    const sets = admin.resource<ReplicaSetObject>(REPLICA_SETS);
    const list = await sets.list({ namespace: NS, labelSelector: 'app=web' });
    const replicas = new Map<string, number>(list.items.map((rs) => [rs.metadata.name ?? '', rs.spec?.replicas ?? 0]));
    const tally: ReplicaTally = { maxTotal: 0, violations: [], ended: false };
    replicaSetWatch = sets.watch({ namespace: NS, labelSelector: 'app=web', resourceVersion: list.metadata.resourceVersion ?? '' });
    const stream = replicaSetWatch;
    void (async () => {
      try {
        for await (const event of stream) {
          if (event.type === 'BOOKMARK') continue;
          const name = event.object.metadata.name ?? '';
          if (event.type === 'DELETED') replicas.delete(name);
          else replicas.set(name, event.object.spec?.replicas ?? 0);
          let total = 0;
          for (const n of replicas.values()) total += n;
          tally.maxTotal = Math.max(tally.maxTotal, total);
          if (total > ceiling) tally.violations.push(`${event.type} ${name}: replicas add up to ${total} > ${ceiling}`);
        }
      } finally {
        tally.ended = true;
      }
    })().catch((e: unknown) => tally.violations.push(`the ReplicaSets watch failed: ${String(e)}`));
    return tally;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-handover-'));
    const dataDir = join(root, 'data');
    apiserver = startK8ts(['apiserver', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    adminKubeconfig = line.slice('export KUBECONFIG='.length).trim();
    admin = newHttpClient(restConfigFromKubeconfig(adminKubeconfig));
    cmKubeconfig = join(dataDir, 'pki', 'controller-manager.kubeconfig');
    await admin.resource(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    let newPodsAdmitted = 0;
    gate = await startReadinessGate(admin, {
      namespace: NS,
      admit: (pod) => pod.spec?.containers[0]?.image === OLD_IMAGE || newPodsAdmitted++ < NEW_PODS_READY_BEFORE_KILL,
    });
    kubelet = startFakeKubelet(admin, { namespace: NS, nodeName: NODE, ready: gate.admits, onError: (e) => kubeletErrors.push(e) });
  });

  after(async () => {
    podWatch?.cancel();
    replicaSetWatch?.cancel();
    gate?.stop();
    kubelet?.stop();
    for (const m of managers) await m.stop('SIGKILL').catch(() => undefined);
    admin?.close();
    await apiserver?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('SIGKILL of the leader mid-rollout: the next manager takes the Lease and finishes the rollout without extra pods', async () => {
    const a = await startManager();
    await waitFor(async () => (await lease())?.spec?.holderIdentity === a.identity, { timeoutMs: 30_000, intervalMs: 100, description: 'manager A holds the Lease' });
    const transitionsUnderA = (await lease())!.spec!.leaseTransitions ?? 0;

    const tally = await tallyPods();
    const replicaTally = await tallyReplicaSets(REPLICAS + MAX_SURGE);
    await admin.resource<DeploymentObject>(DEPLOYMENTS).create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: REPLICAS,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: MAX_SURGE, maxUnavailable: 1 } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: OLD_IMAGE }] } },
      },
    });
    await waitFor(async () => (await deployment()).status?.availableReplicas === REPLICAS, { timeoutMs: 60_000, intervalMs: 100, description: 'the Deployment is available' });

    const kubectl = newKubectl('1.32', adminKubeconfig);
    await kubectl.ok('set', 'image', 'deployment/web', `web=${NEW_IMAGE}`);
    // maxSurge 1, maxUnavailable 1 and only 2 new pods ready: the rollout rests at 3 old and 4 new pods (7 = replicas + maxSurge, 5 available).
    await waitFor(
      async () => {
        const [oldRs, newRs] = [await replicaSetWith(OLD_IMAGE), await replicaSetWith(NEW_IMAGE)];
        const addedNew = tally.added.filter((p) => p.image === NEW_IMAGE).length;
        return oldRs?.spec?.replicas === 3 && newRs?.spec?.replicas === 4 && newRs.status?.readyReplicas === NEW_PODS_READY_BEFORE_KILL && addedNew === 4;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: 'the rollout is part-way: 3 old and 4 new pods, 2 of them ready, all seen by the pods watch' },
    );
    const newHash = (await replicaSetWith(NEW_IMAGE))!.metadata.labels?.[HASH] ?? '';
    const oldHash = (await replicaSetWith(OLD_IMAGE))!.metadata.labels?.[HASH] ?? '';
    assert.notEqual(newHash, '');
    assert.notEqual(oldHash, newHash);

    assert.equal(await a.process.stop('SIGKILL'), 'SIGKILL');
    const addedBeforeHandover = tally.added.length;
    assert.equal((await lease())!.spec!.holderIdentity, a.identity, 'a killed leader cannot release the Lease');

    const b = await startManager();
    assert.notEqual(b.identity, a.identity);
    await waitFor(async () => (await lease())?.spec?.holderIdentity === b.identity, { timeoutMs: 30_000, intervalMs: 100, description: 'manager B takes the Lease once it expires' });
    const taken = (await lease())!;
    assert.equal(taken.spec!.leaseTransitions, transitionsUnderA + 1, 'one transition: from A to B');

    await gate!.release();
    assert.match(await kubectl.ok('rollout', 'status', 'deployment/web', '--timeout=60s'), /deployment "web" successfully rolled out/);
    await waitFor(
      async () => {
        const s = await deployment();
        return (
          s.status?.observedGeneration === s.metadata.generation &&
          s.status?.replicas === REPLICAS &&
          s.status?.updatedReplicas === REPLICAS &&
          s.status?.availableReplicas === REPLICAS
        );
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the Deployment status shows the finished rollout' },
    );
    // The fake kubelet finishes the graceful deletions of the old pods: then only the 6 new ones are left.
    await waitFor(
      async () => {
        const pods = (await admin.resource<PodObject>(PODS).list({ namespace: NS, labelSelector: 'app=web' })).items;
        return pods.length === REPLICAS && pods.every((p) => p.metadata.labels?.[HASH] === newHash && p.spec?.containers[0]?.image === NEW_IMAGE);
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'only the 6 new pods are left' },
    );
    const final = await deployment();
    assert.equal(final.status?.readyReplicas, REPLICAS);
    assert.equal(final.metadata.generation, 2);

    podWatch!.cancel();
    replicaSetWatch!.cancel();
    assert.deepEqual(replicaTally.violations, [], 'the ReplicaSets never asked for more than replicas + maxSurge pods');
    assert.equal(replicaTally.ended, false, 'the ReplicaSets watch saw the whole test');
    assert.equal(replicaTally.maxTotal, REPLICAS + MAX_SURGE, 'the rollout used its surge');
    assert.deepEqual(tally.violations, []);
    assert.equal(tally.ended, false, 'the pods watch saw the whole test');
    const names = tally.added.map((p) => p.name);
    assert.equal(new Set(names).size, names.length, 'no pod name added twice');
    assert.equal(tally.added.filter((p) => p.hash === oldHash).length, REPLICAS, 'exactly 6 pods of the first template');
    assert.equal(tally.added.filter((p) => p.hash === newHash).length, REPLICAS, 'exactly 6 pods of the new template');
    assert.equal(tally.added.length, 2 * REPLICAS, 'no other pod created');
    assert.equal(addedBeforeHandover, REPLICAS + 4, 'manager A created the 6 first pods and 4 new ones');
    assert.equal(tally.added.length - addedBeforeHandover, REPLICAS - 4, 'manager B created only the 2 pods the rollout still needed');
    assert.equal((await lease())!.spec!.holderIdentity, b.identity);
    assert.deepEqual(gate!.errors, []);
    assert.deepEqual(kubeletErrors.filter((e) => !(e instanceof Error && /not found|conflict|modified/i.test(e.message))), []);
  });
});
