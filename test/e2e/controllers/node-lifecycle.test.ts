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
import { after, before, describe, it } from 'node:test';
import type { Event, Node, Pod, Taint } from 'kubernetes-types/core/v1.js';
import type { HttpClient } from '../../../src/client/rest/http-client.js';
import { EVENTS, NODES, PODS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { startControlPlane, type ControlPlane } from './testing/control-plane.js';
import { startNodeHeartbeats, type NodeHeartbeats } from './testing/node-heartbeats.js';

type NodeObject = KubeObject & Node;
type PodObject = KubeObject & Pod;

const UNREACHABLE = 'node.kubernetes.io/unreachable';

describe('node lifecycle: a node whose lease stops (real API server and controller manager)', { timeout: 120_000 }, () => {
  let plane: ControlPlane;
  let admin: HttpClient;
  let heartbeats: NodeHeartbeats | undefined;

  const nodes = () => admin.resource<NodeObject>(NODES);
  const pods = () => admin.resource<PodObject>(PODS);
  const node = (name: string) => nodes().get(name);
  const pod = (name: string) => pods().get(name, { namespace: 'default' });

  async function readyPod(name: string, tolerations: NonNullable<Pod['spec']>['tolerations']): Promise<void> {
    const created = await pods().create({ metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }], ...(tolerations ? { tolerations } : {}) } });
    await pods().updateStatus({ ...created, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
  }

  before(async () => {
    plane = await startControlPlane({
      name: 'node-lifecycle',
      managerArgs: [
        '--leader-elect=false',
        '--controllers=nodelifecycle,taint-eviction-controller,node-ipam-controller',
        '--node-monitor-grace-period=2s',
        '--node-monitor-period=200ms',
        '--node-eviction-rate=100',
      ],
    });
    admin = plane.admin;
  });

  after(async () => {
    heartbeats?.close();
    await plane?.stop();
  });

  it('two nodes with renewed leases stay Ready and each gets its own podCIDR', async () => {
    heartbeats = await startNodeHeartbeats(admin, ['n1', 'n2']);
    await readyPod('brief', [{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }]);
    await readyPod('patient', undefined);
    await readyPod('forever', [{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute' }]);
    await waitFor(async () => (await node('n1')).spec?.podCIDR !== undefined && (await node('n2')).spec?.podCIDR !== undefined, { timeoutMs: 15_000 });
    assert.notEqual((await node('n1')).spec?.podCIDR, (await node('n2')).spec?.podCIDR);
    assert.ok(((await pod('patient')).spec?.tolerations ?? []).some((t) => t.key === UNREACHABLE && t.tolerationSeconds === 300), 'DefaultTolerationSeconds gave it 300 s');
  });

  it('when n1 stops renewing its lease: Ready=Unknown, unreachable taints, pods unready, and the brief pod is evicted', async () => {
    heartbeats!.stop('n1');
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
    await heartbeats!.resume('n1');
    await waitFor(async () => ((await node('n1')).spec?.taints ?? []).length === 0, { timeoutMs: 15_000 });
    assert.equal((await pod('patient')).metadata.deletionTimestamp, undefined);
  });
});
