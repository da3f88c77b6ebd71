/**
 * Fakes for the scheduler runtime's unit tests (never used outside tests):
 * pods and nodes, a snapshot over NodeInfos, a nominator, a recording event
 * recorder, and plugins assembled from functions.
 */
import type { InformerFactory } from '../../client/cache/interfaces.js';
import type { EventRecorder, EventType } from '../../client/record/interface.js';
import type { Client } from '../../client/rest/interface.js';
import { newLogger } from '../../machinery/logger.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { Snapshot } from '../cache/interface.js';
import type { HandleParts } from '../framework/runtime.js';
import type { NodeInfoLister, Plugin, PodNominator } from '../framework/interfaces.js';
import { NodeInfo } from '../framework/node-info.js';
import { PodInfo, type Node, type Pod } from '../framework/types.js';

export const silentLogger = newLogger('test', { level: 'silent' });

export function makeNode(name: string, labels: Record<string, string> = {}): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `node-${name}`, labels }, spec: {}, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } };
}

let podCounter = 0;
export function makePod(name: string, options: { priority?: number; nodeName?: string; nominatedNodeName?: string; schedulerName?: string; namespace?: string; uid?: string } = {}): Pod {
  podCounter++;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'default', uid: options.uid ?? `uid-${name}-${podCounter}`, resourceVersion: '1' },
    spec: {
      containers: [{ name: 'c', image: 'busybox' }],
      ...(options.priority === undefined ? {} : { priority: options.priority }),
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
      ...(options.schedulerName === undefined ? {} : { schedulerName: options.schedulerName }),
    },
    status: { phase: 'Pending', ...(options.nominatedNodeName === undefined ? {} : { nominatedNodeName: options.nominatedNodeName }) },
  };
}

export function nodeInfoOf(node: Node, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(...pods);
  info.setNode(node);
  return info;
}

/** A Snapshot over fixed NodeInfos (replace `nodes` to change it). */
export class FakeSnapshot implements Snapshot {
  generation = 0;
  constructor(public nodes: NodeInfo[] = []) {}
  get numNodes(): number {
    return this.nodes.length;
  }
  nodeInfos(): NodeInfoLister {
    return this;
  }
  list(): readonly NodeInfo[] {
    return this.nodes;
  }
  havePodsWithAffinityList(): readonly NodeInfo[] {
    return this.nodes.filter((n) => n.podsWithAffinity.length > 0);
  }
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[] {
    return this.nodes.filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
  }
  get(nodeName: string): NodeInfo | undefined {
    return this.nodes.find((n) => n.name === nodeName);
  }
}

export class FakeNominator implements PodNominator {
  readonly byNode = new Map<string, PodInfo[]>();
  addNominatedPod(podInfo: PodInfo, nodeName?: string): void {
    this.deleteNominatedPodIfExists(podInfo.pod);
    const node = nodeName ?? podInfo.pod.status?.nominatedNodeName ?? '';
    if (node === '') return;
    this.byNode.set(node, [...(this.byNode.get(node) ?? []), podInfo]);
  }
  deleteNominatedPodIfExists(pod: Pod): void {
    for (const [node, list] of this.byNode) this.byNode.set(node, list.filter((p) => p.uid !== pod.metadata.uid));
  }
  updateNominatedPod(_oldPod: Pod, newPodInfo: PodInfo): void {
    this.addNominatedPod(newPodInfo);
  }
  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.byNode.get(nodeName) ?? [];
  }
}

export interface RecordedEvent {
  readonly object: KubeObject;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

export class RecordingRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }
}

const unusedInformers: InformerFactory = {
  informerFor: () => {
    throw new Error('no informers in this test');
  },
  start: () => undefined,
  waitForCacheSync: async () => undefined,
  stop: () => undefined,
};

export function handleParts(overrides: Partial<HandleParts> & { client?: Client } = {}): HandleParts {
  return {
    snapshot: new FakeSnapshot(),
    client: overrides.client ?? ({ resource: () => { throw new Error('no client in this test'); } } as Client),
    informers: unusedInformers,
    events: new RecordingRecorder(),
    nominator: new FakeNominator(),
    logger: silentLogger,
    ...overrides,
  };
}

/** A plugin made of the given extension-point methods. */
export function fakePlugin<T extends object>(name: string, methods: T): Plugin & T {
  return { name, ...methods };
}

export { PodInfo };
