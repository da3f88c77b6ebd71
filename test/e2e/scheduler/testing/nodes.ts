/**
 * Node objects for scheduler tests, without kubelets (as upstream's
 * scheduler_perf and integration tests make them): created through the API
 * with labels and taints, then given a status with capacity, allocatable and
 * a Ready condition, as a kubelet would post it.
 */
import type { Node, Taint } from 'kubernetes-types/core/v1.js';
import type { Client } from '../../../../src/client/rest/interface.js';
import { NODES } from '../../../../src/client/rest/resources.js';
import { formatTime, type KubeObject } from '../../../../src/machinery/meta.js';

export type NodeObject = KubeObject & Node;

export interface NodeShape {
  readonly name: string;
  /** topology.kubernetes.io/zone */
  readonly zone?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly Taint[];
  /** Default: cpu 4, memory 32Gi, pods 110 (scheduler_perf's node). */
  readonly allocatable?: Readonly<Record<string, string>>;
}

export const DEFAULT_ALLOCATABLE: Readonly<Record<string, string>> = { cpu: '4', memory: '32Gi', pods: '110' };

/** The Node as created: kubernetes.io/hostname, the zone label, and taints. */
export function nodeObject(shape: NodeShape): NodeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: shape.name,
      labels: {
        'kubernetes.io/hostname': shape.name,
        'kubernetes.io/os': 'linux',
        ...(shape.zone !== undefined ? { 'topology.kubernetes.io/zone': shape.zone } : {}),
        ...shape.labels,
      },
    },
    spec: shape.taints !== undefined && shape.taints.length > 0 ? { taints: [...shape.taints] } : {},
  };
}

/** The status a kubelet would post: capacity = allocatable, Ready=True. */
export function readyStatus(shape: NodeShape): NonNullable<Node['status']> {
  const now = formatTime(new Date());
  const allocatable = { ...(shape.allocatable ?? DEFAULT_ALLOCATABLE) };
  return {
    capacity: allocatable,
    allocatable,
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
  };
}

/** Create a ready node through the API. */
export async function createReadyNode(client: Client, shape: NodeShape): Promise<NodeObject> {
  const nodes = client.resource<NodeObject>(NODES);
  let latest = await nodes.create(nodeObject(shape));
  // The controller manager may change the new Node first (a not-ready taint, a podCIDR): on a
  // conflict, post the status again on the latest version, as a kubelet would.
  for (let attempt = 1; ; attempt++) {
    try {
      return await nodes.updateStatus({ ...latest, status: readyStatus(shape) });
    } catch (err) {
      if (attempt >= 10 || (err as { status?: { code?: number } }).status?.code !== 409) throw err;
      latest = await nodes.get(shape.name);
    }
  }
}
