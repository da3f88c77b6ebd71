/**
 * A fake scheduler Handle for DefaultPreemption's unit tests: a snapshot of
 * NodeInfos, a framework whose only filter is "the pod's cpu, memory and pod
 * count fit in what the node has left", a nominator, an in-memory informer
 * factory (PodDisruptionBudgets are put straight into its indexers), an event
 * recorder that remembers, and the fake client. Never use it outside tests.
 */
import type { Node as NodeType, Pod as PodType } from 'kubernetes-types/core/v1.js';
import { newIndexer, type StoreIndexer } from '../../../../client/cache/indexer.js';
import type { InformerFactory, SharedIndexInformer } from '../../../../client/cache/interfaces.js';
import type { EventRecorder, EventType } from '../../../../client/record/interface.js';
import type { ResourceRef } from '../../../../client/rest/interface.js';
import { newFakeClient, type FakeClient } from '../../../../client/testing/fake-client.js';
import { newLogger } from '../../../../machinery/logger.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { CycleState, StateData } from '../../../framework/cycle-state.js';
import type { Framework, Handle, NodeInfoLister, PodNominator, WaitingPod } from '../../../framework/interfaces.js';
import { NodeInfo } from '../../../framework/node-info.js';
import { podPriority } from '../../../framework/preemption/pod-priority.js';
import { unschedulable, type PluginStatus, type Status } from '../../../framework/status.js';
import { PodInfo, type Node, type Pod } from '../../../framework/types.js';

export interface PodSpecOptions {
  readonly namespace?: string;
  readonly uid?: string;
  readonly priority?: number;
  readonly cpu?: string;
  readonly memory?: string;
  readonly nodeName?: string;
  readonly labels?: Record<string, string>;
  readonly startTime?: string;
  readonly preemptionPolicy?: 'Never' | 'PreemptLowerPriority';
  readonly nominatedNodeName?: string;
  readonly deletionTimestamp?: string;
  readonly conditions?: NonNullable<PodType['status']>['conditions'];
}

export function makePod(name: string, options: PodSpecOptions = {}): Pod {
  const requests: Record<string, string> = {};
  if (options.cpu !== undefined) requests.cpu = options.cpu;
  if (options.memory !== undefined) requests.memory = options.memory;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: options.uid ?? `uid-${name}`,
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      ...(options.deletionTimestamp !== undefined ? { deletionTimestamp: options.deletionTimestamp } : {}),
    },
    spec: {
      schedulerName: 'default-scheduler',
      containers: [{ name: 'c', image: 'busybox', resources: { requests } }],
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
      ...(options.nodeName !== undefined ? { nodeName: options.nodeName } : {}),
      ...(options.preemptionPolicy !== undefined ? { preemptionPolicy: options.preemptionPolicy } : {}),
    },
    status: {
      ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
      ...(options.nominatedNodeName !== undefined ? { nominatedNodeName: options.nominatedNodeName } : {}),
      ...(options.conditions !== undefined ? { conditions: options.conditions } : {}),
    },
  };
  return pod;
}

export function makeNode(name: string, allocatable: { cpu: string; memory?: string; pods?: string }): Node {
  const node: Node & NodeType = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { allocatable: { cpu: allocatable.cpu, memory: allocatable.memory ?? '64Gi', pods: allocatable.pods ?? '110' } },
  };
  return node;
}

export function makeNodeInfo(node: Node, pods: readonly Pod[] = []): NodeInfo {
  const info = new NodeInfo(...pods);
  info.setNode(node);
  return info;
}

class FakeLister implements NodeInfoLister {
  constructor(private readonly nodes: readonly NodeInfo[]) {}
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
    const node = nodeName ?? podInfo.pod.status?.nominatedNodeName ?? '';
    if (node === '') return;
    this.byNode.set(node, [...(this.byNode.get(node) ?? []), podInfo]);
  }
  deleteNominatedPodIfExists(pod: Pod): void {
    for (const [node, infos] of this.byNode) this.byNode.set(node, infos.filter((i) => i.uid !== pod.metadata.uid));
  }
  updateNominatedPod(): void {}
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

export class RecordingEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }
}

/** Informers whose indexers tests fill directly. */
export class FakeInformerFactory implements InformerFactory {
  private readonly indexers = new Map<string, StoreIndexer>();
  indexerFor<T extends KubeObject>(ref: ResourceRef): StoreIndexer<T> {
    const key = `${ref.group}/${ref.resource}`;
    let indexer = this.indexers.get(key);
    if (indexer === undefined) this.indexers.set(key, (indexer = newIndexer()));
    return indexer as unknown as StoreIndexer<T>;
  }
  informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef): SharedIndexInformer<T> {
    return {
      indexer: this.indexerFor<T>(ref),
      addEventHandler: () => ({ remove: () => undefined }),
      hasSynced: true,
      synced: Promise.resolve(),
      lastSyncResourceVersion: '',
    };
  }
  start(): void {}
  async waitForCacheSync(): Promise<void> {}
  stop(): void {}
}

/** Counts the PreFilter extension calls it sees, so tests can tell a cloned state from the original. */
export class PreFilterCalls implements StateData {
  constructor(
    public removed = 0,
    public added = 0,
  ) {}
  clone(): PreFilterCalls {
    return new PreFilterCalls(this.removed, this.added);
  }
}
export const PRE_FILTER_CALLS_KEY = 'FakeFramework/calls';

/** The only filter: requests (and one more pod) within allocatable minus what the node's pods request. */
export function fitsResources(pod: Pod, nodeInfo: NodeInfo): PluginStatus {
  const requests = new PodInfo(pod).requests;
  const reasons: string[] = [];
  if (nodeInfo.pods.length + 1 > nodeInfo.allocatable.allowedPodNumber) reasons.push('Too many pods');
  if (requests.milliCPU > 0 && requests.milliCPU + nodeInfo.requested.milliCPU > nodeInfo.allocatable.milliCPU) reasons.push('Insufficient cpu');
  if (requests.memory > 0 && requests.memory + nodeInfo.requested.memory > nodeInfo.allocatable.memory) reasons.push('Insufficient memory');
  return reasons.length === 0 ? undefined : unschedulable(...reasons);
}

export class FakeFramework implements Framework {
  readonly profileName = 'default-scheduler';
  readonly percentageOfNodesToScore = undefined;
  /** When set, the PreFilter RemovePod extension answers this. */
  removePodStatus: Status | undefined;
  filterCalls = 0;

  constructor(private readonly nominator: PodNominator) {}

  runPreFilterExtensionAddPod(state: CycleState): PluginStatus {
    const calls = state.read<PreFilterCalls>(PRE_FILTER_CALLS_KEY);
    if (calls !== undefined) calls.added++;
    return undefined;
  }
  runPreFilterExtensionRemovePod(state: CycleState): PluginStatus {
    const calls = state.read<PreFilterCalls>(PRE_FILTER_CALLS_KEY);
    if (calls !== undefined) calls.removed++;
    return this.removePodStatus;
  }
  runFilterPlugins(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    this.filterCalls++;
    return fitsResources(pod, nodeInfo);
  }
  /** As upstream: with the nominated pods of higher or equal priority added, then without them. */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const nominated = this.nominator
      .nominatedPodsForNode(nodeInfo.name)
      .filter((info) => info.uid !== pod.metadata.uid && podPriority(info.pod) >= podPriority(pod));
    if (nominated.length > 0) {
      const withNominated = nodeInfo.clone();
      for (const info of nominated) withNominated.addPod(info);
      const status = this.runFilterPlugins(state, pod, withNominated);
      if (status !== undefined) return status;
    }
    return this.runFilterPlugins(state, pod, nodeInfo);
  }

  queueSortLess(): boolean {
    throw new Error('not used by preemption');
  }
  runPreEnqueuePlugins(): PluginStatus {
    throw new Error('not used by preemption');
  }
  runPreFilterPlugins(): never {
    throw new Error('not used by preemption');
  }
  runPostFilterPlugins(): never {
    throw new Error('not used by preemption');
  }
  runPreScorePlugins(): PluginStatus {
    throw new Error('not used by preemption');
  }
  runScorePlugins(): never {
    throw new Error('not used by preemption');
  }
  runReservePluginsReserve(): PluginStatus {
    throw new Error('not used by preemption');
  }
  runReservePluginsUnreserve(): void {
    throw new Error('not used by preemption');
  }
  runPermitPlugins(): PluginStatus {
    throw new Error('not used by preemption');
  }
  waitOnPermit(): Promise<PluginStatus> {
    throw new Error('not used by preemption');
  }
  runPreBindPlugins(): Promise<PluginStatus> {
    throw new Error('not used by preemption');
  }
  runBindPlugins(): Promise<PluginStatus> {
    throw new Error('not used by preemption');
  }
  runPostBindPlugins(): void {
    throw new Error('not used by preemption');
  }
  hasFilterPlugins(): boolean {
    return true;
  }
  hasPostFilterPlugins(): boolean {
    return true;
  }
  hasScorePlugins(): boolean {
    return false;
  }
  eventsToRegister(): ReadonlyMap<string, never[]> {
    return new Map();
  }
}

export interface FakeHandle extends Handle {
  readonly client: FakeClient;
  readonly informers: FakeInformerFactory;
  readonly events: RecordingEventRecorder;
  readonly nominator: FakeNominator;
  readonly framework: FakeFramework;
  readonly waitingPods: Map<string, WaitingPod>;
}

/** A handle over these nodes; the pods of the NodeInfos are also stored in the fake client. */
export function newFakeHandle(nodes: readonly NodeInfo[]): FakeHandle {
  const client = newFakeClient();
  const nominator = new FakeNominator();
  const waitingPods = new Map<string, WaitingPod>();
  const lister = new FakeLister(nodes);
  return {
    snapshot: { nodeInfos: () => lister },
    client,
    informers: new FakeInformerFactory(),
    events: new RecordingEventRecorder(),
    nominator,
    logger: newLogger('test', { level: 'silent' }),
    framework: new FakeFramework(nominator),
    waitingPods,
    getWaitingPod: (uid) => waitingPods.get(uid),
  };
}
