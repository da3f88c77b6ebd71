/**
 * PodTopologySpread's PreScore, Score and NormalizeScore (upstream's
 * scoring.go) for the ScheduleAnyway constraints. PreScore finds the domains
 * of the feasible nodes and counts their matching pods over all nodes
 * (hostname domains are counted per node at Score time instead); Score sums,
 * per constraint, count × log(domains + 2) + (maxSkew − 1); NormalizeScore
 * turns fewer matching pods into a higher score. A cycle costs
 * O(nodes × constraints + pods in non-hostname domains of feasible nodes).
 */
import type { NodeInfo } from '../../framework/node-info.js';
import { MAX_NODE_SCORE, type NodeScore } from '../../framework/interfaces.js';
import type { Node, Pod } from '../../framework/types.js';
import { LABEL_HOSTNAME } from './args.js';
import { countPodsMatchSelector, matchNodeInclusionPolicies, needsInclusionCheck, nodeLabelsMatchSpreadConstraints, type SpreadConstraint } from './constraints.js';
import { requiredNodeAffinity } from '../helper/node-selector.js';

export const PRE_SCORE_STATE_KEY = 'PreScorePodTopologySpread';
const INVALID_SCORE = -1;

export interface PreScoreState {
  readonly constraints: readonly SpreadConstraint[];
  /** Feasible nodes that miss a topology key: scored 0. */
  readonly ignoredNodes: ReadonlySet<string>;
  /** Per constraint: topology value of a feasible node → matching pods (not used for hostname). */
  readonly topologyValueToPodCounts: ReadonlyArray<Map<string, number>>;
  /** Per constraint: log(number of domains + 2). */
  readonly topologyNormalizingWeight: readonly number[];
}

/** Upstream's topologyNormalizingWeight: the weight of a topology with `size` domains. */
export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

/** Upstream's scoreForCount: (maxSkew − 1) waters down the differences between domains. */
export function scoreForCount(count: number, maxSkew: number, weight: number): number {
  return count * weight + (maxSkew - 1);
}

function labelValue(labels: Readonly<Record<string, string>> | undefined, key: string): string {
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key]! : '';
}

/**
 * `requireAllTopologies`: feasible nodes without every topology key are
 * ignored (false only for system-default constraints, so that nodes without
 * a zone still get hostname spreading).
 */
export function computePreScoreState(
  pod: Pod,
  constraints: readonly SpreadConstraint[],
  feasibleNodes: readonly NodeInfo[],
  allNodes: readonly NodeInfo[],
  requireAllTopologies: boolean,
): PreScoreState {
  const ignoredNodes = new Set<string>();
  const counts = constraints.map(() => new Map<string, number>());
  for (const nodeInfo of feasibleNodes) {
    const labels = nodeInfo.node?.metadata.labels;
    if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(labels, constraints)) {
      ignoredNodes.add(nodeInfo.name);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === LABEL_HOSTNAME) return;
      const value = labelValue(labels, c.topologyKey);
      if (!counts[i]!.has(value)) counts[i]!.set(value, 0);
    });
  }
  const topologyNormalizingWeightOf = constraints.map((c, i) =>
    topologyNormalizingWeight(c.topologyKey === LABEL_HOSTNAME ? feasibleNodes.length - ignoredNodes.size : counts[i]!.size),
  );

  const requiredAffinity = requiredNodeAffinity(pod);
  const namespace = pod.metadata.namespace ?? '';
  const checkInclusion = needsInclusionCheck(constraints, pod);
  // Hostname domains are counted per node at Score time.
  const counted = constraints.map((_, i) => i).filter((i) => constraints[i]!.topologyKey !== LABEL_HOSTNAME);
  if (counted.length > 0) {
    for (const nodeInfo of allNodes) {
      const node = nodeInfo.node;
      if (node === undefined) continue;
      const labels = node.metadata.labels;
      if (requireAllTopologies && !nodeLabelsMatchSpreadConstraints(labels, constraints)) continue;
      for (const i of counted) {
        const c = constraints[i]!;
        const value = labelValue(labels, c.topologyKey);
        const current = counts[i]!.get(value);
        // Only domains of feasible nodes matter.
        if (current === undefined) continue;
        if (checkInclusion[i] && !matchNodeInclusionPolicies(c, pod, node, requiredAffinity)) continue;
        counts[i]!.set(value, current + countPodsMatchSelector(nodeInfo.pods, c, namespace));
      }
    }
  }
  return { constraints, ignoredNodes, topologyValueToPodCounts: counts, topologyNormalizingWeight: topologyNormalizingWeightOf };
}

export function nodeScore(state: PreScoreState, pod: Pod, nodeInfo: NodeInfo, node: Node): number {
  if (state.ignoredNodes.has(node.metadata.name ?? '')) return 0;
  const labels = node.metadata.labels;
  if (labels === undefined) return 0;
  let score = 0;
  state.constraints.forEach((c, i) => {
    if (!Object.hasOwn(labels, c.topologyKey)) return;
    const count =
      c.topologyKey === LABEL_HOSTNAME
        ? countPodsMatchSelector(nodeInfo.pods, c, pod.metadata.namespace ?? '')
        : (state.topologyValueToPodCounts[i]!.get(labels[c.topologyKey]!) ?? 0);
    score += scoreForCount(count, c.maxSkew, state.topologyNormalizingWeight[i]!);
  });
  return Math.round(score);
}

/** Fewer matching pods → higher score: MAX × (max + min − score) / max; ignored nodes get 0. */
export function normalizeScores(state: PreScoreState, scores: NodeScore[]): void {
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  for (const s of scores) {
    if (state.ignoredNodes.has(s.name)) {
      s.score = INVALID_SCORE;
      continue;
    }
    if (s.score < min) min = s.score;
    if (s.score > max) max = s.score;
  }
  for (const s of scores) {
    if (s.score === INVALID_SCORE) s.score = 0;
    else if (max === 0) s.score = MAX_NODE_SCORE;
    else s.score = Math.trunc((MAX_NODE_SCORE * (max + min - s.score)) / max);
  }
}
