/**
 * The objects of bench:scheduler, shaped after upstream's scheduler_perf
 * (test/integration/scheduler_perf: node-default.yaml, pod-default.yaml and
 * the topology-spreading and anti-affinity templates): Node objects with no
 * kubelet, and the pods of three workloads.
 */

export const ZONES = 10;

/** A Node as scheduler_perf makes them: cpu 4, memory 32Gi, 110 pods; hostname and zone labels. */
export function benchNode(index: number): Record<string, unknown> {
  const name = `sched-node-${index}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': `zone-${index % ZONES}` } },
    spec: {},
  };
}

/** The status a kubelet would post for it. */
export function benchNodeStatus(): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const resources = { cpu: '4', memory: '32Gi', pods: '110' };
  return {
    capacity: resources,
    allocatable: resources,
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
  };
}

export type Workload = 'basic' | 'spread' | 'antiaffinity' | 'baseline';

/** Pods per group of the anti-affinity workload: the members of a group go to distinct nodes. */
export const ANTI_AFFINITY_GROUP = 10;

/** A pod of a workload; `baseline` pods name a scheduler that does not exist, so nobody schedules them. */
export function benchSchedulingPod(workload: Workload, index: number, namespace: string): Record<string, unknown> {
  const labels: Record<string, string> = { workload };
  const spec: Record<string, unknown> = {
    containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '100m', memory: '500Mi' } } }],
  };
  if (workload === 'baseline') spec['schedulerName'] = 'bench-nobody';
  if (workload === 'spread') {
    spec['topologySpreadConstraints'] = [
      { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { workload } } },
    ];
  }
  if (workload === 'antiaffinity') {
    const group = `g-${Math.floor(index / ANTI_AFFINITY_GROUP)}`;
    labels['group'] = group;
    spec['affinity'] = {
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { group } } }] },
    };
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${workload}-${index}`, namespace, labels }, spec };
}
