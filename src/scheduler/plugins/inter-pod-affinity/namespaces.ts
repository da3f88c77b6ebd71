/**
 * The namespace side of affinity terms. An incoming pod's term with a
 * namespaceSelector is resolved once per cycle into the names of the
 * namespaces it selects (upstream's mergeAffinityTermNamespacesIfNotEmpty),
 * so that matching existing pods never looks up their namespace's labels.
 * Existing pods' terms are matched against a snapshot of the incoming pod's
 * namespace labels (upstream's GetNamespaceLabelsSnapshot).
 */
import type { Indexer } from '../../../client/cache/interfaces.js';
import { nothing, type Labels } from '../../../machinery/selectors/label-selector.js';
import type { AffinityTerm, WeightedAffinityTerm } from '../../framework/types.js';

/** The labels of namespace `name`, or undefined when it is unknown (as upstream: an empty set). */
export function namespaceLabelsSnapshot(namespaces: Indexer | undefined, name: string): Labels | undefined {
  const labels = namespaces?.get(name)?.metadata.labels;
  return labels === undefined ? undefined : { ...labels };
}

/**
 * The term with the namespaces its namespaceSelector selects added to its
 * namespaces and the selector replaced by `nothing()`. A term whose selector
 * is empty (`{}`: every namespace) or absent is returned as it is.
 */
export function resolveTermNamespaces<T extends AffinityTerm>(term: T, namespaces: Indexer | undefined): T {
  const selector = term.namespaceSelector;
  if (selector.empty() || selector.matchesNothing()) return term;
  const names = new Set(term.namespaces);
  for (const ns of namespaces?.list() ?? []) {
    if (selector.matches(ns.metadata.labels)) names.add(ns.metadata.name ?? '');
  }
  return { ...term, namespaces: names, namespaceSelector: nothing() };
}

export function resolveTermsNamespaces(terms: readonly AffinityTerm[], namespaces: Indexer | undefined): AffinityTerm[] {
  return terms.map((t) => resolveTermNamespaces(t, namespaces));
}

export function resolveWeightedTermsNamespaces(terms: readonly WeightedAffinityTerm[], namespaces: Indexer | undefined): WeightedAffinityTerm[] {
  return terms.map((t) => resolveTermNamespaces(t, namespaces));
}
