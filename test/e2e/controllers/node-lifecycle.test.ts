/**
 * Node lifecycle end to end: a real API server and `k8ts controller-manager`
 * (node lifecycle, taint eviction and node IPAM, short timers through
 * upstream's flags). The test stands in for two kubelets: it posts their
 * nodes' Ready status and renews their Leases in kube-node-lease. When one
 * stops renewing, its node goes Ready=Unknown, gets the unreachable taints,
 * its pods go unready, and the pod that tolerates the taint for a second is
 * deleted while the ones that tolerate it longer stay; when it comes back,
 * the taints are lifted.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Event, Node, Pod, Taint } from 'kubernetes-types/core/v1.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { EVENTS, LEASES, NODES, PODS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { formatTime, type KubeObject } from '../../../src/machinery/meta.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';

type NodeObject = KubeObject & Node;
type PodObject = KubeObject & Pod;
type LeaseObject = KubeObject & Lease;

const microTime = (): string => new Date().toISOString().replace('Z', '000Z');
const UNREACHABLE = 'node.kubernetes.io/unreachable';

describe('node lifecycle: a node whose lease stops (real API server and controller manager)', { timeout: 120_000 }, () => {
  let root: string;
  let apiserver: K8tsProcess;
  let manager: K8tsProcess;
  let admin: HttpClient;
  /** The nodes whose "kubelet" (this test) renews the Lease. */
  const alive = new Set<string>();
  let renewer: NodeJS.Timeout | undefined;

  const nodes = () => admin.resource<NodeObject>(NODES);
  const pods = () => admin.resource<PodObject>(PODS);
  const leases = () => admin.resource<LeaseObject>(LEASES);
  const node = (name: string) => nodes().get(name);
  const pod = (name: string) => pods().get(name, { namespace: 'default' });

  /** What a kubelet posts: Ready=True with a fresh heartbeat (again on a conflict with the controllers' writes, as a kubelet does). */
  async function postReady(name: string): Promise<void> {
    await waitFor(async () => {
      const now = formatTime(new Date());
      const current = await node(name);
      await nodes().updateStatus({
        ...current,
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] },
      });
      return true;
    });
  }

  async function renewLeases(): Promise<void> {
    for (const name of alive) {
      const lease = await leases().get(name, { namespace: 'kube-node-lease' });
      await leases().update({ ...lease, spec: { ...lease.spec, renewTime: microTime() } });
    }
  }

  async function readyPod(name: string, tolerations: NonNullable<Pod['spec']>['tolerations']): Promise<void> {
    const created = await pods().create({ metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }], ...(tolerations ? { tolerations } : {}) } });
    await pods().updateStatus({ ...created, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-node-lifecycle-'));
    const dataDir = join(root, 'data');
    apiserver = startK8ts(['apiserver', '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    const line = await apiserver.waitForLine(/^export KUBECONFIG=/, 60_000);
    await apiserver.waitForLine(/^apiserver: serving on /, 60_000);
    admin = newHttpClient(restConfigFromKubeconfig(line.slice('export KUBECONFIG='.length).trim()));
    manager = startK8ts([
      'controller-manager',
      '--kubeconfig',
      join(dataDir, 'pki', 'controller-manager.kubeconfig'),
      '--secure-port',
      '0',
      '--leader-elect=false',
      '--controllers=nodelifecycle,taint-eviction-controller,node-ipam-controller',
      '--node-monitor-grace-period=2s',
      '--node-monitor-period=200ms',
      '--node-eviction-rate=100',
    ]);
    await manager.waitForLine(/^controller-manager: serving /, 60_000);
  });

  after(async () => {
    if (renewer !== undefined) clearInterval(renewer);
    await manager?.stop();
    admin?.close();
    await apiserver?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('two nodes with renewed leases stay Ready and each gets its own podCIDR', async () => {
    for (const name of ['n1', 'n2']) {
      await nodes().create({ metadata: { name } });
      await postReady(name);
      await leases().create({ metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime() } });
      alive.add(name);
    }
    renewer = setInterval(() => void renewLeases().catch(() => {}), 200);
    await readyPod('brief', [{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }]);
    await readyPod('patient', undefined);
    await readyPod('forever', [{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute' }]);
    await waitFor(async () => (await node('n1')).spec?.podCIDR !== undefined && (await node('n2')).spec?.podCIDR !== undefined, { timeoutMs: 15_000 });
    assert.notEqual((await node('n1')).spec?.podCIDR, (await node('n2')).spec?.podCIDR);
    assert.ok(((await pod('patient')).spec?.tolerations ?? []).some((t) => t.key === UNREACHABLE && t.tolerationSeconds === 300), 'DefaultTolerationSeconds gave it 300 s');
  });

  it('when n1 stops renewing its lease: Ready=Unknown, unreachable taints, pods unready, and the brief pod is evicted', async () => {
    alive.delete('n1');
    await waitFor(async () => (await node('n1')).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown', { timeoutMs: 20_000 });
    const ready = (await node('n1')).status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.reason, 'NodeStatusUnknown');
    assert.equal(ready?.message, 'Kubelet stopped posting node status.');
    await waitFor(async () => ((await node('n1')).spec?.taints ?? []).length === 2, { timeoutMs: 10_000 });
    assert.deepEqual(((await node('n1')).spec?.taints ?? []).map((t: Taint) => `${t.key}:${t.effect}`).sort(), [`${UNREACHABLE}:NoExecute`, `${UNREACHABLE}:NoSchedule`]);
    assert.deepEqual((await node('n2')).spec?.taints ?? [], [], 'n2 is healthy');
    await waitFor(async () => (await pod('brief')).metadata.deletionTimestamp !== undefined, { timeoutMs: 15_000 });
    assert.equal((await pod('brief')).status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    for (const name of ['patient', 'forever']) {
      const p = await pod(name);
      assert.equal(p.metadata.deletionTimestamp, undefined, `${name} tolerates the taint longer`);
      assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False', `${name} is marked unready`);
    }
    await waitFor(async () =>
      (await admin.resource<KubeObject & Event>(EVENTS).list({ namespace: 'default' })).items.some(
        (e) => e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/brief' && e.source?.component === 'taint-eviction-controller',
      ),
    );
  });

  it('when n1 comes back (lease renewed, Ready posted) its taints are lifted', async () => {
    alive.add('n1');
    await postReady('n1');
    await waitFor(async () => ((await node('n1')).spec?.taints ?? []).length === 0, { timeoutMs: 15_000 });
    assert.equal((await pod('patient')).metadata.deletionTimestamp, undefined);
  });
});
