/** Small builders of DaemonSets, nodes and pods for the DaemonSet controller's unit tests. */
import type { Taint } from 'kubernetes-types/core/v1.js';
import type { DaemonSetObject, NodeObject, PodObject } from '../types.js';
import { POD_REVISION_LABEL } from '../../history/controller-revision.js';
import { affinityForNode } from '../node-binding.js';

export function node(name: string, options: { readonly labels?: Record<string, string>; readonly taints?: Taint[] } = {}): NodeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(options.labels ?? {}) } },
    spec: options.taints !== undefined ? { taints: options.taints } : {},
  };
}

export function daemonSet(overrides: { readonly spec?: Partial<NonNullable<DaemonSetObject['spec']>>; readonly name?: string } = {}): DaemonSetObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: overrides.name ?? 'agent', namespace: 'ns', uid: 'ds-uid', generation: 1 },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
      ...(overrides.spec ?? {}),
    },
  };
}

export interface PodOptions {
  readonly hash?: string;
  readonly ready?: boolean;
  readonly phase?: string;
  readonly bound?: boolean;
  readonly created?: string;
  readonly deleting?: boolean;
  readonly readySince?: string;
}

/** A daemon pod for the node: affinity to it, bound unless bound=false, Running and Ready unless told otherwise. */
export function daemonPod(name: string, nodeName: string, options: PodOptions = {}): PodObject {
  const ready = options.ready ?? true;
  const pod: PodObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
      labels: { app: 'agent', [POD_REVISION_LABEL]: options.hash ?? 'h1' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-uid', controller: true }],
    },
    spec: { containers: [{ name: 'c', image: 'agent:1' }], affinity: affinityForNode(undefined, nodeName), ...(options.bound === false ? {} : { nodeName }) },
    status: {
      phase: options.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: options.readySince ?? '2026-01-01T00:00:00Z' }],
    },
  };
  if (options.deleting === true) pod.metadata.deletionTimestamp = '2026-01-01T00:01:00Z';
  return pod;
}
