/**
 * `k8ts scheduler` as a process against a real API server, with three Node
 * objects and no kubelet, and pods whose placement is known in advance: a
 * node selector, a toleration of the control-plane taint, a topology spread
 * across zones, required anti-affinity between replicas, an unschedulable pod
 * whose `kubectl describe` message is upstream's word for word, and the
 * preemption of a low-priority pod by a high-priority one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Event, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ResourceClient } from '../../../src/client/rest/interface.js';
import { builtinResource, EVENTS, NAMESPACES, PODS, SERVICE_ACCOUNTS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { isNotFound } from '../../../src/machinery/status.js';
import { newKubectl } from '../testing/kubectl.js';
import { recordBindings, type BindingRecorder, type PodObject } from './testing/binding-recorder.js';
import { createReadyNode } from './testing/nodes.js';
import { startSchedulerCluster, type SchedulerCluster } from './testing/scheduler-cluster.js';

const NS = 'placement';
const PRIORITY_CLASSES = builtinResource('scheduling.k8s.io', 'v1', 'priorityclasses');
const CONTROL_PLANE_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' } as const;
const TOLERATE_CONTROL_PLANE = { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' } as const;
const ALLOCATABLE = { cpu: '4', memory: '8Gi', pods: '110' };

/** A pod of one container requesting `cpu` (100m by default), with more of its spec as given. */
function pod(name: string, labels: Record<string, string>, spec: Partial<PodSpec> = {}, cpu = '100m'): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels },
    spec: { containers: [{ name: 'c', image: 'pause', resources: { requests: { cpu, memory: '64Mi' } } }], ...spec },
  };
}

describe('k8ts scheduler places pods as upstream would', { timeout: 240_000 }, () => {
  let cluster: SchedulerCluster;
  let recorder: BindingRecorder;
  const pods = (): ResourceClient<PodObject> => cluster.admin.resource<PodObject>(PODS);
  const nodeOf = async (name: string): Promise<string> => {
    let node = '';
    await waitFor(() => (node = recorder.nodeOf(name) ?? '') !== '', { timeoutMs: 30_000, intervalMs: 20, description: `${name} is bound` });
    return node;
  };

  const events = async (involved: string, reason: string): Promise<Event[]> =>
    ((await cluster.admin.resource<KubeObject & Event>(EVENTS).list({ namespace: NS })).items as Event[]).filter((e) => e.involvedObject.name === involved && e.reason === reason);

  before(async () => {
    cluster = await startSchedulerCluster('scheduler-placement');
    await createReadyNode(cluster.admin, { name: 'cp-a', zone: 'zone-a', labels: { 'node-role.kubernetes.io/control-plane': '' }, taints: [CONTROL_PLANE_TAINT], allocatable: ALLOCATABLE });
    await createReadyNode(cluster.admin, { name: 'worker-b', zone: 'zone-b', allocatable: ALLOCATABLE });
    await createReadyNode(cluster.admin, { name: 'worker-c', zone: 'zone-c', labels: { disktype: 'ssd' }, allocatable: ALLOCATABLE });
    await cluster.admin.resource(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    // No ServiceAccount controller runs here: the test makes the ServiceAccount pods need (ServiceAccount admission).
    await cluster.admin.resource(SERVICE_ACCOUNTS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } });
    recorder = await recordBindings(cluster.admin, NS);
    await cluster.startScheduler(['--leader-elect=false']);
  });

  after(async () => {
    recorder?.stop();
    await cluster?.stop();
  });

  it('follows a node selector', async () => {
    await pods().create(pod('ssd', { app: 'ssd' }, { nodeSelector: { disktype: 'ssd' } }));
    assert.equal(await nodeOf('ssd'), 'worker-c');
    // The binding is announced as upstream's scheduler does.
    await waitFor(
      async () =>
        (await events('ssd', 'Scheduled')).some((e) => e.message === 'Successfully assigned placement/ssd to worker-c' && e.source?.component === 'default-scheduler'),
      { timeoutMs: 10_000, intervalMs: 50, description: 'the Scheduled event' },
    );
  });

  it('places a pod that tolerates the control-plane taint on the tainted node it selects', async () => {
    await pods().create(pod('tolerant', { app: 'tolerant' }, { nodeSelector: { 'topology.kubernetes.io/zone': 'zone-a' }, tolerations: [TOLERATE_CONTROL_PLANE] }));
    assert.equal(await nodeOf('tolerant'), 'cp-a');
  });

  it('spreads pods across zones (maxSkew 1, DoNotSchedule)', async () => {
    const spread: Partial<PodSpec> = {
      tolerations: [TOLERATE_CONTROL_PLANE],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'spread' } } }],
    };
    await Promise.all(['spread-0', 'spread-1', 'spread-2'].map((name) => pods().create(pod(name, { app: 'spread' }, spread))));
    const nodes = await Promise.all(['spread-0', 'spread-1', 'spread-2'].map(nodeOf));
    assert.deepEqual([...nodes].sort(), ['cp-a', 'worker-b', 'worker-c'], 'one pod in each zone');
  });

  it('keeps replicas with required anti-affinity apart, off the tainted node', async () => {
    const antiAffinity: Partial<PodSpec> = {
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'replica' } } }] } },
    };
    await Promise.all(['replica-0', 'replica-1'].map((name) => pods().create(pod(name, { app: 'replica' }, antiAffinity))));
    const nodes = await Promise.all(['replica-0', 'replica-1'].map(nodeOf));
    assert.deepEqual([...nodes].sort(), ['worker-b', 'worker-c']);
  });

  it('leaves a pod that fits nowhere Pending, with upstream\'s message in `kubectl describe pod`', async () => {
    await pods().create(pod('too-big', { app: 'too-big' }, {}, '5'));
    // Upstream's FitError text: the filter reasons sorted, then DefaultPreemption's own summary.
    const expected =
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
      'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    let scheduled: { status?: string; reason?: string; message?: string } | undefined;
    await waitFor(
      async () => {
        const p = (await pods().get('too-big', { namespace: NS })) as PodObject;
        scheduled = p.status?.conditions?.find((c) => c.type === 'PodScheduled');
        return scheduled?.status === 'False';
      },
      { timeoutMs: 30_000, intervalMs: 50, description: 'PodScheduled=False' },
    );
    assert.deepEqual({ ...scheduled, lastTransitionTime: undefined, lastProbeTime: undefined }, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: expected, lastTransitionTime: undefined, lastProbeTime: undefined });
    const kubectl = newKubectl('1.32', cluster.adminKubeconfig);
    let described = '';
    await waitFor(
      async () => {
        described = await kubectl.ok('describe', 'pod', 'too-big', '-n', NS);
        return /FailedScheduling/.test(described);
      },
      { timeoutMs: 15_000, intervalMs: 100, description: 'the FailedScheduling event' },
    );
    const line = described.split('\n').find((l) => l.includes('FailedScheduling'))!;
    assert.match(line, /^\s+Warning\s+FailedScheduling\s+\S+(\s+\(x\d+ over \S+\))?\s+default-scheduler\s+/);
    assert.equal(line.slice(line.indexOf('default-scheduler') + 'default-scheduler'.length).trim(), expected);
    assert.match(described, /^Status:\s+Pending$/m);
    assert.match(described, /^Node:\s+<none>$/m);
    assert.equal(recorder.nodeOf('too-big'), undefined);
  });

  it('preempts a lower-priority pod for a higher-priority one, nominating the node first', async () => {
    const classes = cluster.admin.resource(PRIORITY_CLASSES);
    await classes.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'low' }, value: 100 } as KubeObject);
    await classes.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 } as KubeObject);
    // The pods name their class and carry the priority the Priority admission plugin computes from it.
    const onWorkerB = (priorityClassName: string, priority: number): Partial<PodSpec> => ({ nodeSelector: { 'kubernetes.io/hostname': 'worker-b' }, priorityClassName, priority });
    await pods().create(pod('victim', { app: 'victim' }, onWorkerB('low', 100), '3'));
    assert.equal(await nodeOf('victim'), 'worker-b');

    await pods().create(pod('preemptor', { app: 'preemptor' }, onWorkerB('high', 1000), '3'));
    // No kubelet here: finish the victim's graceful deletion as worker-b's kubelet would once its containers stopped.
    await waitFor(
      async () => {
        try {
          const victim = (await pods().get('victim', { namespace: NS })) as PodObject;
          if (victim.metadata.deletionTimestamp === undefined) return false;
          await pods().delete('victim', { namespace: NS, gracePeriodSeconds: 0 });
          return true;
        } catch (e: unknown) {
          if (isNotFound(e)) return true;
          throw e;
        }
      },
      { timeoutMs: 30_000, intervalMs: 50, description: 'the victim is evicted' },
    );
    assert.equal(await nodeOf('preemptor'), 'worker-b');
    assert.deepEqual(recorder.nominations.get('preemptor'), ['worker-b'], 'nominated to worker-b before it was bound there');
    assert.ok(recorder.deleted.has('victim'));
    for (const other of ['spread-0', 'spread-1', 'spread-2', 'replica-0', 'replica-1']) {
      assert.ok(!recorder.deleted.has(other), `${other} (priority 0) was not a victim: removing the low-priority pod was enough`);
    }
    await waitFor(
      async () =>
        (await events('victim', 'Preempted')).some((e) => /^Preempted by pod /.test(e.message ?? '')),
      { timeoutMs: 10_000, intervalMs: 50, description: "the victim's Preempted event" },
    );
  });

  it('bound every pod exactly once', () => {
    for (const [name, nodes] of recorder.bindings) assert.equal(nodes.length, 1, `${name} was bound to ${nodes.join(', ')}`);
    assert.equal(recorder.bindings.size, 9, 'every pod but too-big');
  });
});
