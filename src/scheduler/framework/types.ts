/**
 * The scheduler's view of pods: a Pod with its affinity terms parsed once
 * (upstream's framework.PodInfo), so that the hot loops of InterPodAffinity
 * and the cache never parse selectors again.
 */
import type { Node as NodeSpecType, Pod as PodType, PodAffinityTerm, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import { labelSelectorFromObject, type LabelSelector } from '../../machinery/selectors/label-selector.js';
import type { Labels } from '../../machinery/selectors/label-selector.js';
import { computePodRequests, type Resource } from './resource.js';

export type Pod = KubeObject & PodType;
export type Node = KubeObject & NodeSpecType;

/** A parsed PodAffinityTerm (upstream's framework.AffinityTerm). */
export interface AffinityTerm {
  /** Namespaces named by the term (the pod's own namespace when it names none and has no namespaceSelector). */
  readonly namespaces: ReadonlySet<string>;
  readonly selector: LabelSelector;
  readonly topologyKey: string;
  /** Matches nothing when the term has no namespaceSelector; everything for `{}`. */
  readonly namespaceSelector: LabelSelector;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  readonly weight: number;
}

/** Whether `pod` (whose namespace has labels `namespaceLabels`) is selected by the term. */
export function affinityTermMatches(term: AffinityTerm, pod: Pod, namespaceLabels: Labels | undefined): boolean {
  const ns = pod.metadata.namespace ?? '';
  if (!term.namespaces.has(ns) && !term.namespaceSelector.matches(namespaceLabels)) return false;
  return term.selector.matches(pod.metadata.labels);
}

function parseTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  if (namespaces.size === 0 && term.namespaceSelector === undefined) namespaces.add(pod.metadata.namespace ?? '');
  return {
    namespaces,
    selector: labelSelectorFromObject(term.labelSelector),
    topologyKey: term.topologyKey,
    namespaceSelector: labelSelectorFromObject(term.namespaceSelector),
  };
}

function parseWeighted(pod: Pod, terms: readonly WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  return (terms ?? []).map((t) => ({ ...parseTerm(pod, t.podAffinityTerm), weight: t.weight }));
}

/** A pod with its parsed affinity terms and its requests (computed once, on first use). */
export class PodInfo {
  readonly requiredAffinityTerms: readonly AffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly AffinityTerm[];
  readonly preferredAffinityTerms: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: readonly WeightedAffinityTerm[];
  private cachedRequests: Resource | undefined;
  private cachedNonZero: Resource | undefined;

  constructor(readonly pod: Pod) {
    const affinity = pod.spec?.affinity;
    this.requiredAffinityTerms = (affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => parseTerm(pod, t));
    this.requiredAntiAffinityTerms = (affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => parseTerm(pod, t));
    this.preferredAffinityTerms = parseWeighted(pod, affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    this.preferredAntiAffinityTerms = parseWeighted(pod, affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  }

  /** The pod's requests (computePodRequests); do not mutate. */
  get requests(): Resource {
    return (this.cachedRequests ??= computePodRequests(this.pod));
  }

  /** The pod's requests with upstream's defaults for containers that request no cpu/memory (used by scoring); do not mutate. */
  get nonZeroRequests(): Resource {
    return (this.cachedNonZero ??= computePodRequests(this.pod, { nonZero: true }));
  }

  hasAffinity(): boolean {
    return this.requiredAffinityTerms.length + this.requiredAntiAffinityTerms.length + this.preferredAffinityTerms.length + this.preferredAntiAffinityTerms.length > 0;
  }

  get uid(): string {
    return this.pod.metadata.uid ?? '';
  }
}

/** `namespace/name` of a pod (for messages and maps keyed by name). */
export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}
