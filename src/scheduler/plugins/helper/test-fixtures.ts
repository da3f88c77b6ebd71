/**
 * Small builders for the plugins' unit tests: nodes, pods and NodeInfos
 * (never used outside tests).
 */
import type { Container, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { Handle, NodeInfoLister } from '../../framework/interfaces.js';
import { NodeInfo } from '../../framework/node-info.js';
import type { Node, Pod } from '../../framework/types.js';

let uidCounter = 0;

export interface TestNodeOptions {
  readonly labels?: Record<string, string>;
  readonly allocatable?: Record<string, string>;
  readonly taints?: Taint[];
  readonly unschedulable?: boolean;
  readonly images?: Array<{ names: string[]; sizeBytes: number }>;
}

export function makeNode(name: string, options: TestNodeOptions = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `node-${name}`, ...(options.labels === undefined ? {} : { labels: options.labels }) },
    spec: {
      ...(options.taints === undefined ? {} : { taints: options.taints }),
      ...(options.unschedulable === undefined ? {} : { unschedulable: options.unschedulable }),
    },
    status: {
      allocatable: options.allocatable ?? { cpu: '4', memory: '8Gi', pods: '110' },
      ...(options.images === undefined ? {} : { images: options.images }),
    },
  };
}

export interface TestPodOptions {
  readonly namespace?: string;
  readonly nodeName?: string;
  readonly nodeSelector?: Record<string, string>;
  readonly tolerations?: Toleration[];
  readonly containers?: Container[];
  readonly initContainers?: Container[];
  /** Shorthand: one container with these requests. */
  readonly requests?: Record<string, string>;
  readonly affinity?: NonNullable<Pod['spec']>['affinity'];
  readonly uid?: string;
}

export function makePod(name: string, options: TestPodOptions = {}): Pod {
  const containers = options.containers ?? [
    { name: 'c', image: 'busybox', ...(options.requests === undefined ? {} : { resources: { requests: options.requests } }) },
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default', uid: options.uid ?? `pod-${name}-${++uidCounter}` },
    spec: {
      containers,
      ...(options.initContainers === undefined ? {} : { initContainers: options.initContainers }),
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
      ...(options.nodeSelector === undefined ? {} : { nodeSelector: options.nodeSelector }),
      ...(options.tolerations === undefined ? {} : { tolerations: options.tolerations }),
      ...(options.affinity === undefined ? {} : { affinity: options.affinity }),
    },
  };
}

/** A NodeInfo holding `pods` on `node`. */
export function makeNodeInfo(node: Node, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(...pods);
  info.setNode(node);
  return info;
}

/** A Handle whose snapshot lists `nodes`; everything else is absent (the basic plugins use only the snapshot). */
export function makeHandle(nodes: readonly NodeInfo[] = []): Handle {
  const lister: NodeInfoLister = {
    list: () => nodes,
    havePodsWithAffinityList: () => nodes.filter((n) => n.podsWithAffinity.length > 0),
    havePodsWithRequiredAntiAffinityList: () => nodes.filter((n) => n.podsWithRequiredAntiAffinity.length > 0),
    get: (name) => nodes.find((n) => n.name === name),
  };
  return { snapshot: { nodeInfos: () => lister } } as unknown as Handle;
}

export const newState = (): CycleState => new CycleState();
