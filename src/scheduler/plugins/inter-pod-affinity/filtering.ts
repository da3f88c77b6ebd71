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
import { compileLabelSelector } from '../pod-topology-spread/label-matcher.js';
import type { ChangeFeed } from '../helper/changed-nodes.js';
import type { ExistingAntiAffinityCache } from './existing-anti-affinity-cache.js';
import type { IncomingTermCounts } from './incoming-term-counts.js';
import { TopologyPairCounts, TopologyValueIds } from './topology-pair-counts.js';

export const PRE_FILTER_STATE_KEY = 'PreFilterInterPodAffinity';

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

/** Whether a pod matches a term of the incoming pod (an affinityTermMatches compiled for the per-pod loops). */
export type PodMatcher = (pod: Pod) => boolean;

/** The incoming pod with its required terms, namespaceSelectors already resolved into namespace names. */
export interface IncomingPodTerms {
  readonly pod: Pod;
  readonly requiredAffinityTerms: readonly AffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly AffinityTerm[];
  /** The terms compiled, in the same order. */
  readonly requiredAffinityMatchers: readonly PodMatcher[];
  readonly requiredAntiAffinityMatchers: readonly PodMatcher[];
}

/** A term of the incoming pod as a predicate; answers as affinityTermMatches(term, pod, undefined). */
export function compileIncomingTerm(term: AffinityTerm): PodMatcher {
  const labels = compileLabelSelector(term.selector);
  // Resolved terms select namespaces by name, or every namespace (`{}`), never by labels.
  const anyNamespace = term.namespaceSelector.matches(undefined);
  const namespaces = term.namespaces;
  return (pod) => (anyNamespace || namespaces.has(pod.metadata.namespace ?? '')) && labels(pod.metadata.labels);
}

export function incomingPodTerms(pod: Pod, requiredAffinityTerms: readonly AffinityTerm[], requiredAntiAffinityTerms: readonly AffinityTerm[]): IncomingPodTerms {
  return {
    pod,
    requiredAffinityTerms,
    requiredAntiAffinityTerms,
    requiredAffinityMatchers: requiredAffinityTerms.map(compileIncomingTerm),
    requiredAntiAffinityMatchers: requiredAntiAffinityTerms.map(compileIncomingTerm),
  };
}

/** Whether `pod` matches every term (false for no terms). Terms are the incoming pod's (namespaces resolved). */
export function podMatchesAllAffinityTerms(terms: readonly AffinityTerm[], pod: Pod): boolean {
  if (terms.length === 0) return false;
  for (const term of terms) if (!affinityTermMatches(term, pod, undefined)) return false;
  return true;
}

/** Count the node's pair of every incoming affinity term if `pod` matches all of them (one existing pod must satisfy all terms). */
function updateWithAffinityTerms(counts: TopologyPairCounts, incoming: IncomingPodTerms, pod: Pod, nodeLabels: Labels | undefined, delta: number): void {
  const matchers = incoming.requiredAffinityMatchers;
  if (matchers.length === 0) return;
  for (const matches of matchers) if (!matches(pod)) return;
  for (const term of incoming.requiredAffinityTerms) counts.addForNode(nodeLabels, term.topologyKey, delta);
}

/** Count the node's pair of each incoming anti-affinity term that `pod` matches. */
function updateWithIncomingAntiAffinityTerms(counts: TopologyPairCounts, incoming: IncomingPodTerms, pod: Pod, nodeLabels: Labels | undefined, delta: number): void {
  const terms = incoming.requiredAntiAffinityTerms;
  const matchers = incoming.requiredAntiAffinityMatchers;
  for (let i = 0; i < terms.length; i++) if (matchers[i]!(pod)) counts.addForNode(nodeLabels, terms[i]!.topologyKey, delta);
}

/** Count the node's pair of each of an existing pod's anti-affinity terms that the incoming pod matches. */
function updateWithExistingAntiAffinityTerms(
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
  ) {
    this.selfMatchesAffinity = podMatchesAllAffinityTerms(incoming.requiredAffinityTerms, incoming.pod);
  }

  /** Whether the incoming pod matches all its own required affinity terms (the first-pod exception). */
  readonly selfMatchesAffinity: boolean;

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
    updateWithExistingAntiAffinityTerms(this.existingAntiAffinityCounts, podInfo.requiredAntiAffinityTerms, this.incoming.pod, this.namespaceLabels, labels, multiplier);
    updateWithAffinityTerms(this.affinityCounts, this.incoming, podInfo.pod, labels, multiplier);
    updateWithIncomingAntiAffinityTerms(this.antiAffinityCounts, this.incoming, podInfo.pod, labels, multiplier);
  }
}

/** Pairs where existing pods' required anti-affinity terms match the incoming pod; `nodes` are those holding such pods. */
export function existingAntiAffinityCounts(
  pod: Pod,
  namespaceLabels: Labels | undefined,
  nodes: readonly NodeInfo[],
  ids = new TopologyValueIds(),
  /** Counts carried across cycles for pods of the same namespace and labels; without it every term is matched. */
  cache?: ExistingAntiAffinityCache,
  /** The changes of the snapshot `nodes` come from (the cache then visits only changed nodes). */
  feed?: ChangeFeed,
): TopologyPairCounts {
  const counts = new TopologyPairCounts(ids);
  if (cache !== undefined) {
    for (const [key, values] of cache.counts(nodes, pod, namespaceLabels, feed)) for (const [value, num] of values) counts.add(key, value, num);
    return counts;
  }
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
  /** Anti-affinity counts carried across cycles (re-counting only changed nodes); without it every pod is matched. */
  cache?: IncomingTermCounts,
  /** The changes of the snapshot `nodes` come from (the cache then visits only changed nodes). */
  feed?: ChangeFeed,
): { affinity: TopologyPairCounts; antiAffinity: TopologyPairCounts } {
  const affinity = new TopologyPairCounts(ids);
  const antiAffinity = new TopologyPairCounts(ids);
  const { requiredAffinityTerms, requiredAntiAffinityTerms } = incoming;
  if (requiredAffinityTerms.length === 0 && requiredAntiAffinityTerms.length === 0) return { affinity, antiAffinity };
  const walkAntiAffinity = requiredAntiAffinityTerms.length > 0 && cache === undefined;
  if (cache !== undefined) {
    for (let i = 0; i < requiredAntiAffinityTerms.length; i++) {
      const term = requiredAntiAffinityTerms[i]!;
      for (const [value, count] of cache.counts(nodes, term, incoming.requiredAntiAffinityMatchers[i]!, feed)) antiAffinity.add(term.topologyKey, value, count);
    }
  }
  if (requiredAffinityTerms.length === 0 && !walkAntiAffinity) return { affinity, antiAffinity };
  for (const nodeInfo of nodes) {
    const node = nodeInfo.node;
    if (node === undefined) continue;
    const labels = node.metadata.labels;
    for (const existing of nodeInfo.pods) {
      if (requiredAffinityTerms.length > 0) updateWithAffinityTerms(affinity, incoming, existing.pod, labels, 1);
      if (walkAntiAffinity) updateWithIncomingAntiAffinityTerms(antiAffinity, incoming, existing.pod, labels, 1);
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
  return state.affinityCounts.size === 0 && state.selfMatchesAffinity;
}
