/**
 * The scheduling framework's contracts: one interface per extension point
 * (upstream's framework/interface.go), the Handle that plugins get, and the
 * Framework that runs a profile's plugins.
 *
 * A scheduling cycle for one pod runs, in order:
 *   QueueSort (orders the active queue) →
 *   PreFilter → Filter (per node, in chunks) → PostFilter (only if no node fits: preemption) →
 *   PreScore → Score (per feasible node) → NormalizeScore → (weights, pick the best) →
 *   Reserve → Permit
 * and then, asynchronously, the binding cycle:
 *   (WaitOnPermit) → PreBind → Bind → PostBind; on any failure, Unreserve in reverse order.
 *
 * Rules for plugins: never throw at an extension point (return a Status);
 * never mutate the pod, node or NodeInfo handed in (preemption's what-if runs
 * on NodeInfo clones, through PreFilterExtensions); everything before Permit
 * is synchronous, because it runs for every node and must be fast.
 */
import type { Client } from '../../client/rest/interface.js';
import type { InformerFactory } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { Logger } from '../../machinery/logger.js';
import type { ClusterEventWithHint } from './cluster-event.js';
import type { CycleState } from './cycle-state.js';
import type { NodeInfo } from './node-info.js';
import type { NodeToStatus } from './node-to-status.js';
import type { PluginStatus, Status } from './status.js';
import type { Pod, PodInfo } from './types.js';

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

export interface Plugin {
  /** Upstream's plugin name, byte for byte (`NodeResourcesFit`). */
  readonly name: string;
}

/** A pod waiting in the scheduling queue (upstream's QueuedPodInfo). */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When it was added to the queue (or last moved back), ms since the epoch: the tie-breaker of PrioritySort. */
  timestamp: number;
  /** Scheduling attempts so far. */
  attempts: number;
  /** When it was first added to the queue. */
  initialAttemptTimestamp: number;
  /** Plugins that turned it down in its last attempt (Unschedulable/Unresolvable): their events re-queue it. */
  unschedulablePlugins: Set<string>;
  /** Plugins that returned Pending in its last attempt. */
  pendingPlugins: Set<string>;
  /** Held back by PreEnqueue (e.g. SchedulingGates) until an event clears it. */
  gated: boolean;
}

/** QueueSort: the order of the active queue (exactly one per profile, and the same in every profile). */
export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** PreEnqueue: may the pod enter the active queue at all (SchedulingGates)? Not Success → the pod stays gated. */
export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): PluginStatus;
}

/** A PreFilter may narrow the cycle to some nodes (NodeName, NodeAffinity with a single-node term, …). */
export interface PreFilterResult {
  /** Only these nodes can fit; undefined means all. */
  readonly nodeNames?: ReadonlySet<string>;
}

export interface PreFilterOutcome {
  readonly result?: PreFilterResult;
  readonly status?: PluginStatus;
}

/**
 * How a PreFilter's cycle state changes when preemption imagines a pod added
 * to or removed from a node (so that Filter answers the what-if correctly).
 */
export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): PluginStatus;
  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): PluginStatus;
}

export interface PreFilterPlugin extends Plugin {
  /** Once per cycle, before any Filter; `nodes` are all the snapshot's nodes. Skip → this plugin's Filter is not run. */
  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PreFilterOutcome | undefined;
  preFilterExtensions?(): PreFilterExtensions | undefined;
}

export interface FilterPlugin extends Plugin {
  /** Whether the pod fits this node. */
  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus;
}

export interface NominatingInfo {
  readonly nominatedNodeName: string;
  /** Override: set status.nominatedNodeName to nominatedNodeName (possibly ''); Noop: leave it. */
  readonly mode: 'Noop' | 'Override';
}

export interface PostFilterResult {
  readonly nominatingInfo?: NominatingInfo;
}

export interface PostFilterOutcome {
  readonly result?: PostFilterResult;
  readonly status?: PluginStatus;
}

/** PostFilter: runs only when no node fits (preemption). The Status message joins the FitError message after "preemption: ". */
export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: Pod, filteredNodeStatus: NodeToStatus): Promise<PostFilterOutcome>;
}

export interface PreScorePlugin extends Plugin {
  /** Once per cycle with the feasible nodes; Skip → this plugin's Score is not run. */
  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus;
}

/** A node's score from one plugin; normalizeScore rewrites `score` in place. */
export interface NodeScore {
  readonly name: string;
  score: number;
}

export interface ScoreExtensions {
  /** Bring the plugin's raw scores into [MIN_NODE_SCORE, MAX_NODE_SCORE]. */
  normalizeScore(state: CycleState, pod: Pod, scores: NodeScore[]): PluginStatus;
}

export interface ScorePlugin extends Plugin {
  /** A number is the node's score (an integer; after normalization within [0, 100]); a Status is an error. */
  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status;
  scoreExtensions?(): ScoreExtensions | undefined;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: Pod, nodeName: string): PluginStatus;
  /** Must be idempotent and must not fail. */
  unreserve(state: CycleState, pod: Pod, nodeName: string): void;
}

export interface PermitOutcome {
  /** Success, Wait (with timeoutMs) or a rejection. */
  readonly status?: PluginStatus;
  readonly timeoutMs?: number;
}

export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: Pod, nodeName: string): PermitOutcome | undefined;
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus>;
}

/** Bind: the first bind plugin that does not return Skip binds the pod (DefaultBinder posts pods/binding). */
export interface BindPlugin extends Plugin {
  bind(state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: Pod, nodeName: string): void;
}

/** The cluster events that could make a pod this plugin rejected schedulable. Every plugin that can reject implements it. */
export interface EnqueueExtensions {
  eventsToRegister(): ClusterEventWithHint[];
}

/** The nodes of one cycle's snapshot (upstream's NodeInfoLister). Never mutate what it returns. */
export interface NodeInfoLister {
  /** Every node, in the cache's zone-interleaved order. */
  list(): readonly NodeInfo[];
  /** Nodes that hold at least one pod with a (anti-)affinity term. */
  havePodsWithAffinityList(): readonly NodeInfo[];
  /** Nodes that hold at least one pod with a required anti-affinity term. */
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[];
  get(nodeName: string): NodeInfo | undefined;
  /**
   * What changed since an earlier answer, for plugins that keep per-node
   * counts across cycles: `changed` holds the NodeInfos whose pods or node
   * changed after generation `since` (a `generation` this method returned
   * before), or is undefined when the lister cannot tell (nodes were added
   * or removed, `since` is too old, or it is -1): then walk every node.
   * Optional: a lister without it makes such plugins walk every node each time.
   */
  changedSince?(since: number): NodeInfoChanges;
}

/** See {@link NodeInfoLister.changedSince}. */
export interface NodeInfoChanges {
  /** Pass it as `since` next time. */
  readonly generation: number;
  readonly changed: readonly NodeInfo[] | undefined;
}

export interface SharedLister {
  nodeInfos(): NodeInfoLister;
}

/** Pods nominated to nodes by preemption, which Filter counts as already there (lives in the scheduling queue). */
export interface PodNominator {
  /** Nominate the pod to nodeName, or to its status.nominatedNodeName when nodeName is undefined ('' removes). */
  addNominatedPod(podInfo: PodInfo, nodeName?: string): void;
  deleteNominatedPodIfExists(pod: Pod): void;
  /** Keep a nomination across an update of the pod (unless the update itself changes status.nominatedNodeName). */
  updateNominatedPod(oldPod: Pod, newPodInfo: PodInfo): void;
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  /** Whether any pod is nominated anywhere: a fast path for Filter, which otherwise asks once per node (optional; absent = ask per node). */
  hasNominatedPods?(): boolean;
}

/** A pod that a Permit plugin told to wait. */
export interface WaitingPod {
  readonly pod: Pod;
  /** The plugins still to allow it. */
  pendingPlugins(): string[];
  allow(pluginName: string): void;
  reject(pluginName: string, message: string): void;
}

/** What a plugin gets from the scheduler (upstream's framework.Handle). */
export interface Handle {
  /** The snapshot of the current cycle (the same object every cycle; its content is refreshed before each). */
  readonly snapshot: SharedLister;
  readonly client: Client;
  /** Shared informers (nodes, pods, namespaces, PodDisruptionBudgets, …), already started when plugins run. */
  readonly informers: InformerFactory;
  /** Records Events as `default-scheduler` (or the profile's schedulerName). */
  readonly events: EventRecorder;
  readonly nominator: PodNominator;
  readonly logger: Logger;
  /** The framework this plugin belongs to (for PostFilter's what-if filtering); valid once the profile is built. */
  readonly framework: Framework;
  getWaitingPod(uid: string): WaitingPod | undefined;
}

/** Plugin construction: `args` is the plugin's pluginConfig args (undefined for none); throws Error with a clear message for bad args. */
export type PluginFactory = (args: unknown, handle: Handle) => Plugin;

/** Plugin name → factory. */
export type Registry = Readonly<Record<string, PluginFactory>>;

export interface PreFilterRun {
  readonly result?: PreFilterResult;
  readonly status: PluginStatus;
  /** Plugins that rejected the pod (for the queue). */
  readonly unschedulablePlugins: ReadonlySet<string>;
}

export interface NodePluginScores {
  readonly name: string;
  /** Weighted score of each score plugin, in the profile's plugin order. */
  readonly scores: ReadonlyArray<{ readonly plugin: string; readonly score: number }>;
  /** Sum of the weighted scores. */
  readonly totalScore: number;
}

/**
 * A profile's plugins, ready to run (upstream's frameworkruntime). Each
 * `run…` calls the profile's plugins of that extension point in order, stops
 * at the first non-Success where upstream does, and stamps the status with
 * the plugin's name.
 */
export interface Framework {
  readonly profileName: string;
  /** The profile's percentageOfNodesToScore, if it sets one (0 or undefined: the scheduler's, adaptive by default). */
  readonly percentageOfNodesToScore: number | undefined;
  queueSortLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
  runPreEnqueuePlugins(pod: Pod): PluginStatus;
  runPreFilterPlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PreFilterRun;
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): PluginStatus;
  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): PluginStatus;
  /** Every filter plugin not skipped; the first rejection wins. */
  runFilterPlugins(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus;
  /** As upstream: filters run twice when higher-or-equal-priority pods are nominated to the node (once with them added, once without). */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus;
  runPostFilterPlugins(state: CycleState, pod: Pod, filteredNodeStatus: NodeToStatus): Promise<PostFilterOutcome>;
  runPreScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus;
  runScorePlugins(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): { readonly scores: NodePluginScores[]; readonly status: PluginStatus };
  runReservePluginsReserve(state: CycleState, pod: Pod, nodeName: string): PluginStatus;
  runReservePluginsUnreserve(state: CycleState, pod: Pod, nodeName: string): void;
  runPermitPlugins(state: CycleState, pod: Pod, nodeName: string): PluginStatus;
  /** Resolves when every Permit plugin that said Wait allowed the pod (Success), or one rejected it or timed out. */
  waitOnPermit(pod: Pod): Promise<PluginStatus>;
  runPreBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus>;
  runBindPlugins(state: CycleState, pod: Pod, nodeName: string): Promise<PluginStatus>;
  runPostBindPlugins(state: CycleState, pod: Pod, nodeName: string): void;
  hasFilterPlugins(): boolean;
  hasPostFilterPlugins(): boolean;
  hasScorePlugins(): boolean;
  /** Each enabled plugin's registered events (plugin name → events), for the queue. */
  eventsToRegister(): ReadonlyMap<string, readonly ClusterEventWithHint[]>;
}
