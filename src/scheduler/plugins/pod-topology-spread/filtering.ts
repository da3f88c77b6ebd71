/**
 * PodTopologySpread's PreFilter and Filter (upstream's filtering.go) for the
 * DoNotSchedule constraints. PreFilter walks every node once and counts, per
 * constraint, the matching pods of each topology value (domain) over the
 * eligible nodes (those with every topology key that pass the inclusion
 * policies), and keeps the two smallest domains (critical paths) so that
 * preemption's AddPod/RemovePod keep the global minimum up to date in O(1).
 * Filter is O(constraints) per node:
 *   skew = pods in the node's domain + (1 if the pod matches itself) − global minimum ≤ maxSkew,
 * where the global minimum is 0 while there are fewer domains than minDomains.
 * A cycle costs O(nodes × constraints + pods) without the counts cache, and
 * O(nodes + domains + pods on changed nodes) with it.
 */
import type { StateData } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { Node, Pod } from '../../framework/types.js';
import { countPodsMatchSelector, matchNodeInclusionPolicies, needsInclusionCheck, nodeLabelsMatchSpreadConstraints, type SpreadConstraint } from './constraints.js';
import { requiredNodeAffinity, type RequiredNodeAffinity } from '../helper/node-selector.js';
import type { ChangeFeed } from '../helper/changed-nodes.js';
import type { SpreadCountsCache } from './spread-counts-cache.js';

export const PRE_FILTER_STATE_KEY = 'PreFilterPodTopologySpread';

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

const MAX_INT32 = 2 ** 31 - 1;

/**
 * The two domains with the fewest matching pods (upstream's criticalPaths):
 * `num0` is always the minimum; `num1` ≥ `num0`, though not necessarily the
 * second smallest after updates — enough for preemption, which changes one node at a time.
 */
export class CriticalPaths {
  value0 = '';
  num0 = MAX_INT32;
  value1 = '';
  num1 = MAX_INT32;

  update(value: string, num: number): void {
    if (value === this.value0 || value === this.value1) {
      if (value === this.value0) this.num0 = num;
      else this.num1 = num;
      if (this.num0 > this.num1) this.swap();
      return;
    }
    if (num < this.num0) {
      this.value1 = this.value0;
      this.num1 = this.num0;
      this.value0 = value;
      this.num0 = num;
    } else if (num < this.num1) {
      this.value1 = value;
      this.num1 = num;
    }
  }

  private swap(): void {
    [this.value0, this.value1] = [this.value1, this.value0];
    [this.num0, this.num1] = [this.num1, this.num0];
  }

  clone(): CriticalPaths {
    const copy = new CriticalPaths();
    copy.value0 = this.value0;
    copy.num0 = this.num0;
    copy.value1 = this.value1;
    copy.num1 = this.num1;
    return copy;
  }
}

export class PreFilterState implements StateData {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    /** Per constraint: topology value → matching pods. */
    readonly matchNum: ReadonlyArray<Map<string, number>>,
    readonly criticalPaths: readonly CriticalPaths[],
    /** Per constraint: whether the pod's own labels match (1) or not (0). */
    readonly selfMatchNum: readonly number[],
    /** The pod's required node affinity (for the inclusion policies of AddPod/RemovePod). */
    readonly requiredAffinity: RequiredNodeAffinity,
    /** Per constraint: the number of domains, fixed at PreFilter (AddPod/RemovePod do not change it). */
    readonly domainsNum: readonly number[],
  ) {}

  /** The global minimum of constraint `i`: 0 while there are fewer domains than minDomains. */
  minMatchNum(i: number): number {
    if (this.domainsNum[i]! < this.constraints[i]!.minDomains) return 0;
    return this.criticalPaths[i]!.num0;
  }

  clone(): PreFilterState {
    return new PreFilterState(
      this.constraints,
      this.matchNum.map((m) => new Map(m)),
      this.criticalPaths.map((p) => p.clone()),
      this.selfMatchNum,
      this.requiredAffinity,
      this.domainsNum,
    );
  }

  /** Account for `updatedPod` added (+1) to or removed (-1) from `node` (preemption's what-if). */
  updateWithPod(updatedPod: Pod, preemptor: Pod, node: Node | undefined, delta: 1 | -1): void {
    if (node === undefined || (updatedPod.metadata.namespace ?? '') !== (preemptor.metadata.namespace ?? '')) return;
    const labels = node.metadata.labels;
    if (!nodeLabelsMatchSpreadConstraints(labels, this.constraints)) return;
    this.constraints.forEach((c, i) => {
      if (!c.matches(updatedPod.metadata.labels)) return;
      if (!matchNodeInclusionPolicies(c, preemptor, node, this.requiredAffinity)) return;
      const value = labels![c.topologyKey]!;
      const num = (this.matchNum[i]!.get(value) ?? 0) + delta;
      this.matchNum[i]!.set(value, num);
      this.criticalPaths[i]!.update(value, num);
    });
  }
}

/**
 * Count the matching pods per domain of each constraint over all nodes. With a
 * cache, constraints whose inclusion policies cannot exclude a node reuse the
 * counts of earlier cycles and re-count only the nodes that changed.
 */
export function computePreFilterState(
  pod: Pod,
  constraints: readonly SpreadConstraint[],
  nodes: readonly NodeInfo[],
  cache?: SpreadCountsCache,
  /** The changes of the snapshot `nodes` come from (the cache then visits only changed nodes). */
  feed?: ChangeFeed,
): PreFilterState {
  const requiredAffinity = requiredNodeAffinity(pod);
  const namespace = pod.metadata.namespace ?? '';
  // Most pods restrict no nodes and most constraints ignore taints: then no node needs the inclusion check.
  const checkInclusion = needsInclusionCheck(constraints, pod);
  const cached = constraints.map((_, i) => cache !== undefined && !checkInclusion[i]);
  const matchNum = constraints.map((_, i) => (cached[i] ? cache!.counts(nodes, constraints, i, namespace, feed) : new Map<string, number>()));
  if (!cached.every(Boolean)) {
    for (const nodeInfo of nodes) {
      const node = nodeInfo.node;
      if (node === undefined) continue;
      const labels = node.metadata.labels;
      if (!nodeLabelsMatchSpreadConstraints(labels, constraints)) continue;
      for (let i = 0; i < constraints.length; i++) {
        if (cached[i]) continue;
        const c = constraints[i]!;
        if (checkInclusion[i] && !matchNodeInclusionPolicies(c, pod, node, requiredAffinity)) continue;
        const value = labels![c.topologyKey]!;
        const counts = matchNum[i]!;
        counts.set(value, (counts.get(value) ?? 0) + countPodsMatchSelector(nodeInfo.pods, c, namespace));
      }
    }
  }
  const criticalPaths = matchNum.map((counts) => {
    const paths = new CriticalPaths();
    for (const [value, num] of counts) paths.update(value, num);
    return paths;
  });
  const selfMatchNum = constraints.map((c) => (c.matches(pod.metadata.labels) ? 1 : 0));
  return new PreFilterState(constraints, matchNum, criticalPaths, selfMatchNum, requiredAffinity, matchNum.map((m) => m.size));
}

export type FilterVerdict = 'fits' | 'missing-label' | 'skew';

/** Whether placing the pod on the node keeps every constraint's skew within maxSkew. */
export function filterNode(state: PreFilterState, node: Node): FilterVerdict {
  const labels = node.metadata.labels;
  for (let i = 0; i < state.constraints.length; i++) {
    const c = state.constraints[i]!;
    if (labels === undefined || !Object.hasOwn(labels, c.topologyKey)) return 'missing-label';
    const matchNum = state.matchNum[i]!.get(labels[c.topologyKey]!) ?? 0;
    const skew = matchNum + state.selfMatchNum[i]! - state.minMatchNum(i);
    if (skew > c.maxSkew) return 'skew';
  }
  return 'fits';
}
