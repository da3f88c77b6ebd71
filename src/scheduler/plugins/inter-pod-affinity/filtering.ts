/**
 * InterPodAffinity's PreFilter and Filter (upstream's filtering.go).
 *
 * PreFilter counts, per topology pair, (a) existing pods whose required
 * anti-affinity terms match the incoming pod (only nodes that hold such pods
 * are walked), and (b) existing pods that match the incoming pod's required
 * affinity (all terms at once) and anti-affinity terms (each term). Filter
 * then answers each node with a few map lookups: O(terms + topology keys).
 * A cycle costs O(pods in the cluster × incoming terms) when the incoming pod
 * has required terms, else O(pods with required anti-affinity × their terms).
 */
import type { Labels } from '../../../machinery/selectors/label-selector.js';
import type { StateData } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { affinityTermMatches, type AffinityTerm, type Node, type Pod, type PodInfo } from '../../framework/types.js';
import { TopologyPairCounts, TopologyValueIds } from './topology-pair-counts.js';

export const PRE_FILTER_STATE_KEY = 'PreFilterInterPodAffinity';

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

/** The incoming pod with its required terms, namespaceSelectors already resolved into namespace names. */
export interface IncomingPodTerms {
  readonly pod: Pod;
  readonly requiredAffinityTerms: readonly AffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly AffinityTerm[];
}

/** Whether `pod` matches every term (false for no terms). Terms are the incoming pod's (namespaces resolved). */
export function podMatchesAllAffinityTerms(terms: readonly AffinityTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  for (const term of terms) if (!affinityTermMatches(term, pod, undefined)) return false;
  return true;
}

/** Count the node's pair of every term if `pod` matches all the terms (affinity: one existing pod must satisfy all terms). */
function updateWithAffinityTerms(counts: TopologyPairCounts, terms: readonly AffinityTerm[], pod: Pod, nodeLabels: Labels | undefined, delta: number): void {
  if (!podMatchesAllAffinityTerms(terms, pod)) return;
  for (const term of terms) counts.addForNode(nodeLabels, term.topologyKey, delta);
}

/** Count the node's pair of each term that `pod` matches. */
function updateWithAntiAffinityTerms(
  counts: TopologyPairCounts,
  terms: readonly AffinityTerm[],
  pod: Pod,
  namespaceLabels: Labels | undefined,
  nodeLabels: Labels | undefined,
  delta: number,
): void {
  for (const term of terms) {
    if (affinityTermMatches(term, pod, namespaceLabels)) counts.addForNode(nodeLabels, term.topologyKey, delta);
  }
}

export class PreFilterState implements StateData {
  constructor(
    readonly incoming: IncomingPodTerms,
    /** Labels of the incoming pod's namespace (to match existing pods' namespaceSelectors). */
    readonly namespaceLabels: Labels | undefined,
    /** Pairs where existing pods' required anti-affinity terms match the incoming pod. */
    readonly existingAntiAffinityCounts: TopologyPairCounts,
    /** Pairs where existing pods match all the incoming pod's required affinity terms. */
    readonly affinityCounts: TopologyPairCounts,
    /** Pairs where existing pods match one of the incoming pod's required anti-affinity terms. */
    readonly antiAffinityCounts: TopologyPairCounts,
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(
      this.incoming,
      this.namespaceLabels,
      this.existingAntiAffinityCounts.clone(),
      this.affinityCounts.clone(),
      this.antiAffinityCounts.clone(),
    );
  }

  /** Account for `podInfo` added (+1) to or removed (-1) from `node` (preemption's what-if). */
  updateWithPod(podInfo: PodInfo, node: Node | undefined, multiplier: 1 | -1): void {
    const labels = node?.metadata.labels;
    updateWithAntiAffinityTerms(this.existingAntiAffinityCounts, podInfo.requiredAntiAffinityTerms, this.incoming.pod, this.namespaceLabels, labels, multiplier);
    updateWithAffinityTerms(this.affinityCounts, this.incoming.requiredAffinityTerms, podInfo.pod, labels, multiplier);
    updateWithAntiAffinityTerms(this.antiAffinityCounts, this.incoming.requiredAntiAffinityTerms, podInfo.pod, undefined, labels, multiplier);
  }
}

/** Pairs where existing pods' required anti-affinity terms match the incoming pod; `nodes` are those holding such pods. */
export function existingAntiAffinityCounts(pod: Pod, namespaceLabels: Labels | undefined, nodes: readonly NodeInfo[], ids = new TopologyValueIds()): TopologyPairCounts {
  const counts = new TopologyPairCounts(ids);
  for (const nodeInfo of nodes) {
    const labels = nodeInfo.node?.metadata.labels;
    if (labels === undefined) continue;
    for (const existing of nodeInfo.podsWithRequiredAntiAffinity) {
      for (const term of existing.requiredAntiAffinityTerms) {
        if (!Object.hasOwn(labels, term.topologyKey)) continue;
        if (affinityTermMatches(term, pod, namespaceLabels)) counts.add(term.topologyKey, labels[term.topologyKey]!, 1);
      }
    }
  }
  return counts;
}

/** Pairs where existing pods match the incoming pod's required affinity (all terms) and anti-affinity (each term). */
export function incomingAffinityAntiAffinityCounts(
  incoming: IncomingPodTerms,
  nodes: readonly NodeInfo[],
  ids = new TopologyValueIds(),
): { affinity: TopologyPairCounts; antiAffinity: TopologyPairCounts } {
  const affinity = new TopologyPairCounts(ids);
  const antiAffinity = new TopologyPairCounts(ids);
  const { requiredAffinityTerms, requiredAntiAffinityTerms } = incoming;
  if (requiredAffinityTerms.length === 0 && requiredAntiAffinityTerms.length === 0) return { affinity, antiAffinity };
  for (const nodeInfo of nodes) {
    const node = nodeInfo.node;
    if (node === undefined) continue;
    const labels = node.metadata.labels;
    for (const existing of nodeInfo.pods) {
      if (requiredAffinityTerms.length > 0) updateWithAffinityTerms(affinity, requiredAffinityTerms, existing.pod, labels, 1);
      if (requiredAntiAffinityTerms.length > 0) updateWithAntiAffinityTerms(antiAffinity, requiredAntiAffinityTerms, existing.pod, undefined, labels, 1);
    }
  }
  return { affinity, antiAffinity };
}

/** Would placing the pod on the node break an existing pod's required anti-affinity? */
export function satisfyExistingPodsAntiAffinity(state: PreFilterState, node: Node): boolean {
  return !state.existingAntiAffinityCounts.anyPositiveForNode(node.metadata.labels);
}

/** Does the node satisfy the incoming pod's required anti-affinity? */
export function satisfyPodAntiAffinity(state: PreFilterState, node: Node): boolean {
  if (state.antiAffinityCounts.size === 0) return true;
  const labels = node.metadata.labels;
  if (labels === undefined) return true;
  for (const term of state.incoming.requiredAntiAffinityTerms) {
    if (!Object.hasOwn(labels, term.topologyKey)) continue;
    if (state.antiAffinityCounts.get(term.topologyKey, labels[term.topologyKey]!) > 0) return false;
  }
  return true;
}

/**
 * Does the node satisfy the incoming pod's required affinity? The node must
 * carry every term's topology key, and each pair must hold a matching pod —
 * unless no pod in the cluster matches at all and the pod matches its own
 * terms: then it is the first of a group with affinity to itself, and may go.
 */
export function satisfyPodAffinity(state: PreFilterState, node: Node): boolean {
  const labels = node.metadata.labels;
  let podsExist = true;
  for (const term of state.incoming.requiredAffinityTerms) {
    if (labels === undefined || !Object.hasOwn(labels, term.topologyKey)) return false;
    if (state.affinityCounts.get(term.topologyKey, labels[term.topologyKey]!) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  return state.affinityCounts.size === 0 && podMatchesAllAffinityTerms(state.incoming.requiredAffinityTerms, state.incoming.pod);
}
