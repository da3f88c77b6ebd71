/**
 * PodTopologySpread (upstream's pkg/scheduler/framework/plugins/podtopologyspread):
 * spec.topologySpreadConstraints — DoNotSchedule ones filter, ScheduleAnyway
 * ones score — and, for pods without constraints, the default constraints
 * of the args (System: hostname and zone, ScheduleAnyway) over the selector
 * of the pod's Services, ReplicaSet or StatefulSet.
 */
import { REPLICA_SETS, SERVICES, STATEFUL_SETS } from '../../../client/rest/resources.js';
import type { ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type {
  EnqueueExtensions,
  FilterPlugin,
  Handle,
  NodeScore,
  PluginFactory,
  PreFilterExtensions,
  PreFilterOutcome,
  PreFilterPlugin,
  PreScorePlugin,
  ScoreExtensions,
  ScorePlugin,
} from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { errorStatus, skip, unresolvable, unschedulable, type PluginStatus, type Status } from '../../framework/status.js';
import type { Pod, PodInfo } from '../../framework/types.js';
import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { parsePodTopologySpreadArgs, SYSTEM_DEFAULT_CONSTRAINTS, type PodTopologySpreadArgs } from './args.js';
import { filterTopologySpreadConstraints, withSelector, type SpreadConstraint, type WhenUnsatisfiable } from './constraints.js';
import { defaultSelector, type WorkloadIndexers } from './default-selector.js';
import { podTopologySpreadEvents } from './events.js';
import { computePreFilterState, ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, filterNode, PRE_FILTER_STATE_KEY, PreFilterState } from './filtering.js';
import { changeFeedOf } from '../helper/changed-nodes.js';
import { SpreadCountsCache } from './spread-counts-cache.js';
import { computePreScoreState, nodeScore, normalizeScores, PRE_SCORE_STATE_KEY, type PreScoreState } from './scoring.js';

export const NAME = 'PodTopologySpread';

function notFound(key: string): Status {
  return errorStatus(new Error(`reading "${key}" from cycleState: not found`));
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, PreFilterExtensions, ScoreExtensions {
  readonly name = NAME;
  private readonly defaultConstraints: readonly TopologySpreadConstraint[];
  private readonly systemDefaulted: boolean;
  /** PreFilter's counts, carried across cycles. */
  private readonly spreadCounts = new SpreadCountsCache();

  constructor(
    args: PodTopologySpreadArgs,
    private readonly handle: Handle,
    /** Present when there are default constraints. */
    private readonly workloads: WorkloadIndexers | undefined,
  ) {
    this.systemDefaulted = args.defaultingType === 'System';
    this.defaultConstraints = this.systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : args.defaultConstraints;
  }

  /** The pod's constraints of one action, or the default ones with the pod's default selector; throws when a selector does not parse. */
  constraintsFor(pod: Pod, action: WhenUnsatisfiable): SpreadConstraint[] {
    const own = pod.spec?.topologySpreadConstraints ?? [];
    if (own.length > 0) return filterTopologySpreadConstraints(own, pod.metadata.labels, action);
    const defaults = filterTopologySpreadConstraints(this.defaultConstraints, pod.metadata.labels, action);
    if (defaults.length === 0 || this.workloads === undefined) return [];
    const selector = defaultSelector(pod, this.workloads);
    if (selector.empty()) return [];
    return withSelector(defaults, selector);
  }

  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PreFilterOutcome | undefined {
    let constraints: SpreadConstraint[];
    try {
      constraints = this.constraintsFor(pod, 'DoNotSchedule');
    } catch (e: unknown) {
      const kind = (pod.spec?.topologySpreadConstraints ?? []).length > 0 ? "obtaining pod's hard topology spread constraints" : 'setting default hard topology spread constraints';
      return { status: errorStatus(new Error(`get constraints from pod: ${kind}: ${describe(e)}`, { cause: e })) };
    }
    if (constraints.length === 0) return { status: skip() };
    const lister = this.handle.snapshot.nodeInfos();
    // The feed describes the snapshot's nodes: only for those.
    const feed = nodes === lister.list() ? changeFeedOf(lister) : undefined;
    state.write(PRE_FILTER_STATE_KEY, computePreFilterState(pod, constraints, nodes, this.spreadCounts, feed));
    return undefined;
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): PluginStatus {
    return this.updateWithPod(state, podToSchedule, podInfoToAdd, nodeInfo, 1);
  }

  removePod(state: CycleState, podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): PluginStatus {
    return this.updateWithPod(state, podToSchedule, podInfoToRemove, nodeInfo, -1);
  }

  private updateWithPod(state: CycleState, podToSchedule: Pod, podInfo: PodInfo, nodeInfo: NodeInfo, delta: 1 | -1): PluginStatus {
    const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
    if (s === undefined) return state.skipFilterPlugins.has(NAME) ? undefined : notFound(PRE_FILTER_STATE_KEY);
    s.updateWithPod(podInfo.pod, podToSchedule, nodeInfo.node, delta);
    return undefined;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const node = nodeInfo.node;
    if (node === undefined) return errorStatus(new Error('node not found'));
    const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
    if (s === undefined) return notFound(PRE_FILTER_STATE_KEY);
    switch (filterNode(s, node)) {
      case 'fits':
        return undefined;
      case 'missing-label':
        return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
      case 'skew':
        return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }
  }

  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus {
    const allNodes = this.handle.snapshot.nodeInfos().list();
    if (nodes.length === 0 || allNodes.length === 0) return skip();
    let constraints: SpreadConstraint[];
    try {
      constraints = this.constraintsFor(pod, 'ScheduleAnyway');
    } catch (e: unknown) {
      const kind = (pod.spec?.topologySpreadConstraints ?? []).length > 0 ? "obtaining pod's soft topology spread constraints" : 'setting default soft topology spread constraints';
      return errorStatus(new Error(`calculating preScoreState: ${kind}: ${describe(e)}`, { cause: e }));
    }
    if (constraints.length === 0) return skip();
    // Only system-default constraints let nodes without a zone still get hostname spreading.
    const requireAllTopologies = (pod.spec?.topologySpreadConstraints ?? []).length > 0 || !this.systemDefaulted;
    state.write(PRE_SCORE_STATE_KEY, computePreScoreState(pod, constraints, nodes, allNodes, requireAllTopologies));
    return undefined;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
    if (s === undefined) return notFound(PRE_SCORE_STATE_KEY);
    const node = nodeInfo.node;
    if (node === undefined) return errorStatus(new Error('node not found'));
    return nodeScore(s, pod, nodeInfo, node);
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
    if (s === undefined) return notFound(PRE_SCORE_STATE_KEY);
    normalizeScores(s, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return podTopologySpreadEvents((pod) => this.constraintsFor(pod, 'DoNotSchedule'));
  }
}

/** The factory: args are PodTopologySpreadArgs (defaultConstraints, defaultingType). */
export const newPodTopologySpread: PluginFactory = (args, handle) => {
  const parsed = parsePodTopologySpreadArgs(args);
  const hasDefaults = parsed.defaultingType === 'System' || parsed.defaultConstraints.length > 0;
  const workloads: WorkloadIndexers | undefined = hasDefaults
    ? {
        services: handle.informers.informerFor(SERVICES).indexer,
        replicaSets: handle.informers.informerFor(REPLICA_SETS).indexer,
        statefulSets: handle.informers.informerFor(STATEFUL_SETS).indexer,
      }
    : undefined;
  return new PodTopologySpread(parsed, handle, workloads);
};
