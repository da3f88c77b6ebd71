/**
 * InterPodAffinity's PreScore, Score and NormalizeScore (upstream's
 * scoring.go). PreScore sums, per topology pair, the weights of
 * - the incoming pod's preferred affinity (+) and anti-affinity (−) terms that existing pods match,
 * - existing pods' required affinity terms that the incoming pod matches (+hardPodAffinityWeight),
 * - existing pods' preferred affinity (+) and anti-affinity (−) terms that the incoming pod matches.
 * Score adds the sums of the node's pairs: O(topology keys) per node. A
 * cycle costs O(pods walked × terms): every pod when the incoming pod has
 * preferred terms, else only pods with (anti-)affinity.
 */
import type { Labels } from '../../../machinery/selectors/label-selector.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { MAX_NODE_SCORE, type NodeScore } from '../../framework/interfaces.js';
import { affinityTermMatches, type AffinityTerm, type Node, type Pod, type PodInfo, type WeightedAffinityTerm } from '../../framework/types.js';

export const PRE_SCORE_STATE_KEY = 'PreScoreInterPodAffinity';

/** topologyKey → value → summed weight. */
export type TopologyScore = Map<string, Map<string, number>>;

/** The incoming pod with its preferred terms, namespaceSelectors resolved into namespace names. */
export interface IncomingPreferredTerms {
  readonly pod: Pod;
  readonly preferredAffinityTerms: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: readonly WeightedAffinityTerm[];
}

export interface PreScoreState {
  readonly topologyScore: TopologyScore;
}

function processTerm(score: TopologyScore, term: AffinityTerm, weight: number, pod: Pod, namespaceLabels: Labels | undefined, nodeLabels: Labels, multiplier: number): void {
  if (!affinityTermMatches(term, pod, namespaceLabels)) return;
  if (!Object.hasOwn(nodeLabels, term.topologyKey)) return;
  const value = nodeLabels[term.topologyKey]!;
  let values = score.get(term.topologyKey);
  if (values === undefined) score.set(term.topologyKey, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + weight * multiplier);
}

function processTerms(score: TopologyScore, terms: readonly WeightedAffinityTerm[], pod: Pod, namespaceLabels: Labels | undefined, nodeLabels: Labels, multiplier: number): void {
  for (const term of terms) processTerm(score, term, term.weight, pod, namespaceLabels, nodeLabels, multiplier);
}

export interface ScoreOptions {
  readonly hardPodAffinityWeight: number;
  /** Labels of the incoming pod's namespace (to match existing pods' namespaceSelectors). */
  readonly namespaceLabels: Labels | undefined;
}

/** Add what one existing pod on `node` contributes to the incoming pod's scores. */
export function processExistingPod(score: TopologyScore, incoming: IncomingPreferredTerms, existing: PodInfo, node: Node, options: ScoreOptions): void {
  // Most pods with affinity have only required anti-affinity, which does not score: nothing to match then.
  if (
    incoming.preferredAffinityTerms.length === 0 &&
    incoming.preferredAntiAffinityTerms.length === 0 &&
    (options.hardPodAffinityWeight <= 0 || existing.requiredAffinityTerms.length === 0) &&
    existing.preferredAffinityTerms.length === 0 &&
    existing.preferredAntiAffinityTerms.length === 0
  ) {
    return;
  }
  const nodeLabels = node.metadata.labels;
  if (nodeLabels === undefined || Object.keys(nodeLabels).length === 0) return;
  // The incoming pod's terms have their namespaces resolved: no namespace labels needed for the existing pod.
  processTerms(score, incoming.preferredAffinityTerms, existing.pod, undefined, nodeLabels, 1);
  processTerms(score, incoming.preferredAntiAffinityTerms, existing.pod, undefined, nodeLabels, -1);
  if (options.hardPodAffinityWeight > 0) {
    for (const term of existing.requiredAffinityTerms) processTerm(score, term, options.hardPodAffinityWeight, incoming.pod, options.namespaceLabels, nodeLabels, 1);
  }
  processTerms(score, existing.preferredAffinityTerms, incoming.pod, options.namespaceLabels, nodeLabels, 1);
  processTerms(score, existing.preferredAntiAffinityTerms, incoming.pod, options.namespaceLabels, nodeLabels, -1);
}

/** The summed scores over `nodes`: every pod of each node when `allPods`, else only pods with (anti-)affinity. */
export function topologyScore(incoming: IncomingPreferredTerms, nodes: readonly NodeInfo[], allPods: boolean, options: ScoreOptions): TopologyScore {
  const score: TopologyScore = new Map();
  for (const nodeInfo of nodes) {
    const node = nodeInfo.node;
    if (node === undefined) continue;
    for (const existing of allPods ? nodeInfo.pods : nodeInfo.podsWithAffinity) processExistingPod(score, incoming, existing, node, options);
  }
  return score;
}

/** A node's raw score: the sums of its pairs. */
export function nodeScore(state: PreScoreState, node: Node): number {
  const labels = node.metadata.labels;
  if (labels === undefined) return 0;
  let score = 0;
  for (const [key, values] of state.topologyScore) {
    if (Object.hasOwn(labels, key)) score += values.get(labels[key]!) ?? 0;
  }
  return score;
}

/** Scale raw scores linearly so that the lowest becomes 0 and the highest MAX_NODE_SCORE (all 0 when they are equal). */
export function normalizeScores(state: PreScoreState, scores: NodeScore[]): void {
  if (state.topologyScore.size === 0) return;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    if (s.score > max) max = s.score;
    if (s.score < min) min = s.score;
  }
  const diff = max - min;
  for (const s of scores) s.score = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((s.score - min) / diff)) : 0;
}
