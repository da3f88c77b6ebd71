/**
 * InterPodAffinity (upstream's pkg/scheduler/framework/plugins/interpodaffinity):
 * required pod affinity and anti-affinity as a filter (including existing
 * pods' anti-affinity towards the incoming pod), preferred terms as a score.
 * Namespace selectors are resolved through the namespaces informer.
 */
import type { Indexer } from '../../../client/cache/interfaces.js';
import { NAMESPACES } from '../../../client/rest/resources.js';
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
import { Code, errorStatus, skip, Status, type PluginStatus } from '../../framework/status.js';
import { PodInfo, type Pod } from '../../framework/types.js';
import { changeFeedOf } from '../helper/changed-nodes.js';
import { parseInterPodAffinityArgs, type InterPodAffinityArgs } from './args.js';
import { interPodAffinityEvents } from './events.js';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
  existingAntiAffinityCounts,
  incomingAffinityAntiAffinityCounts,
  incomingPodTerms,
  PRE_FILTER_STATE_KEY,
  PreFilterState,
  satisfyExistingPodsAntiAffinity,
  satisfyPodAffinity,
  satisfyPodAntiAffinity,
} from './filtering.js';
import { ExistingAntiAffinityCache } from './existing-anti-affinity-cache.js';
import { IncomingTermCounts } from './incoming-term-counts.js';
import { namespaceLabelsSnapshot, resolveTermsNamespaces, resolveWeightedTermsNamespaces } from './namespaces.js';
import { TopologyValueIds } from './topology-pair-counts.js';
import { nodeScore, normalizeScores, PRE_SCORE_STATE_KEY, topologyScore, type PreScoreState } from './scoring.js';

export const NAME = 'InterPodAffinity';

function parsePod(pod: Pod): PodInfo | Status {
  try {
    return new PodInfo(pod);
  } catch (e: unknown) {
    return new Status(Code.UnschedulableAndUnresolvable, [`parsing pod: ${e instanceof Error ? e.message : String(e)}`]);
  }
}

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, PreFilterExtensions, ScoreExtensions {
  readonly name = NAME;
  /** Topology values interned across cycles (see TopologyPairCounts). */
  private valueIds = new TopologyValueIds();
  /** PreFilter's counts of pods matching incoming anti-affinity terms, carried across cycles. */
  private readonly termCounts = new IncomingTermCounts();
  /** PreFilter's counts of existing pods' anti-affinity selecting pods alike, carried across cycles. */
  private readonly existingCounts = new ExistingAntiAffinityCache();

  constructor(
    readonly args: InterPodAffinityArgs,
    private readonly handle: Handle,
    private readonly namespaces: Indexer | undefined,
  ) {}

  preFilter(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PreFilterOutcome | undefined {
    const info = parsePod(pod);
    if (info instanceof Status) return { status: info };
    const incoming = incomingPodTerms(
      pod,
      resolveTermsNamespaces(info.requiredAffinityTerms, this.namespaces),
      resolveTermsNamespaces(info.requiredAntiAffinityTerms, this.namespaces),
    );
    const namespaceLabels = namespaceLabelsSnapshot(this.namespaces, pod.metadata.namespace ?? '');
    // Values of deleted nodes stay interned: start afresh once they outnumber the live ones (earlier states keep their own).
    if (this.valueIds.size > 4 * nodes.length + 1024) this.valueIds = new TopologyValueIds();
    const ids = this.valueIds;
    const lister = this.handle.snapshot.nodeInfos();
    const feed = changeFeedOf(lister);
    const existing = existingAntiAffinityCounts(pod, namespaceLabels, lister.havePodsWithRequiredAntiAffinityList(), ids, this.existingCounts, feed);
    // The feed describes the snapshot's nodes: only for those.
    const { affinity, antiAffinity } = incomingAffinityAntiAffinityCounts(incoming, nodes, ids, this.termCounts, nodes === lister.list() ? feed : undefined);
    if (existing.size === 0 && incoming.requiredAffinityTerms.length === 0 && incoming.requiredAntiAffinityTerms.length === 0) return { status: skip() };
    state.write(PRE_FILTER_STATE_KEY, new PreFilterState(incoming, namespaceLabels, existing, affinity, antiAffinity));
    return undefined;
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, _podToSchedule: Pod, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): PluginStatus {
    return this.updateWithPod(state, podInfoToAdd, nodeInfo, 1);
  }

  removePod(state: CycleState, _podToSchedule: Pod, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): PluginStatus {
    return this.updateWithPod(state, podInfoToRemove, nodeInfo, -1);
  }

  private updateWithPod(state: CycleState, podInfo: PodInfo, nodeInfo: NodeInfo, multiplier: 1 | -1): PluginStatus {
    const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
    if (s === undefined) {
      // PreFilter said Skip: nothing to update (the runtime should not even call us then).
      if (state.skipFilterPlugins.has(NAME)) return undefined;
      return errorStatus(new Error(`reading "${PRE_FILTER_STATE_KEY}" from cycleState: not found`));
    }
    s.updateWithPod(podInfo, nodeInfo.node, multiplier);
    return undefined;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const node = nodeInfo.node;
    if (node === undefined) return errorStatus(new Error('node not found'));
    const s = state.read<PreFilterState>(PRE_FILTER_STATE_KEY);
    if (s === undefined) return errorStatus(new Error(`reading "${PRE_FILTER_STATE_KEY}" from cycleState: not found`));
    if (!satisfyPodAffinity(s, node)) return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_AFFINITY_RULES_NOT_MATCH]);
    if (!satisfyPodAntiAffinity(s, node)) return new Status(Code.Unschedulable, [ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH]);
    if (!satisfyExistingPodsAntiAffinity(s, node)) return new Status(Code.Unschedulable, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH]);
    return undefined;
  }

  preScore(state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): PluginStatus {
    if (nodes.length === 0) return skip();
    const preferredAffinity = pod.spec?.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    const preferredAntiAffinity = pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    const hasConstraints = preferredAffinity.length > 0 || preferredAntiAffinity.length > 0;
    if (this.args.ignorePreferredTermsOfExistingPods && !hasConstraints) return skip();
    const info = parsePod(pod);
    if (info instanceof Status) return errorStatus(new Error(`failed to parse pod: ${info.message()}`));
    const lister = this.handle.snapshot.nodeInfos();
    // Unless the pod has preferred terms, only pods with (anti-)affinity can contribute.
    const allNodes = hasConstraints ? lister.list() : lister.havePodsWithAffinityList();
    const incoming = {
      pod,
      preferredAffinityTerms: resolveWeightedTermsNamespaces(info.preferredAffinityTerms, this.namespaces),
      preferredAntiAffinityTerms: resolveWeightedTermsNamespaces(info.preferredAntiAffinityTerms, this.namespaces),
    };
    const namespaceLabels = namespaceLabelsSnapshot(this.namespaces, pod.metadata.namespace ?? '');
    const score = topologyScore(incoming, allNodes, hasConstraints, { hardPodAffinityWeight: this.args.hardPodAffinityWeight, namespaceLabels });
    if (score.size === 0) return skip();
    const preScoreState: PreScoreState = { topologyScore: score };
    state.write(PRE_SCORE_STATE_KEY, preScoreState);
    return undefined;
  }

  score(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): number | Status {
    const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
    if (s === undefined) return errorStatus(new Error(`reading "${PRE_SCORE_STATE_KEY}" from cycleState: not found`));
    const node = nodeInfo.node;
    if (node === undefined) return errorStatus(new Error('node not found'));
    return nodeScore(s, node);
  }

  scoreExtensions(): ScoreExtensions {
    return this;
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    const s = state.read<PreScoreState>(PRE_SCORE_STATE_KEY);
    if (s === undefined) return errorStatus(new Error(`reading "${PRE_SCORE_STATE_KEY}" from cycleState: not found`));
    normalizeScores(s, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return interPodAffinityEvents();
  }
}

/** The factory: args are InterPodAffinityArgs (hardPodAffinityWeight, ignorePreferredTermsOfExistingPods). */
export const newInterPodAffinity: PluginFactory = (args, handle) => {
  const parsed = parseInterPodAffinityArgs(args);
  const namespaces = handle.informers.informerFor(NAMESPACES).indexer;
  return new InterPodAffinity(parsed, handle, namespaces);
};
