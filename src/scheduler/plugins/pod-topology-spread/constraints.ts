/**
 * A pod's topology spread constraints as the plugin uses them (upstream's
 * internal topologySpreadConstraint): selector parsed (with matchLabelKeys
 * merged in), minDomains defaulted to 1, nodeAffinityPolicy to Honor and
 * nodeTaintsPolicy to Ignore. Pods without constraints of their own get the
 * plugin's default constraints, with a selector derived from their Services
 * and controller (none when that selector is empty).
 */
import type { TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject, labelSelectorFromSet, type LabelSelector, type Labels } from '../../../machinery/selectors/label-selector.js';
import type { Node, Pod, PodInfo } from '../../framework/types.js';
import { compileLabelSelector, type LabelsMatcher } from './label-matcher.js';
import type { RequiredNodeAffinity } from '../helper/node-selector.js';
import { findUntoleratedTaint } from '../helper/taints.js';

export type WhenUnsatisfiable = 'DoNotSchedule' | 'ScheduleAnyway';

export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: LabelSelector;
  /** `selector.matches`, compiled. */
  readonly matches: LabelsMatcher;
  readonly minDomains: number;
  readonly nodeAffinityPolicy: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy: 'Honor' | 'Ignore';
}

/** `matchLabels` ANDed with the selector's requirements (a selector that selects nothing stays so). */
function mergeLabelSetWithSelector(matchLabels: Labels, selector: LabelSelector): LabelSelector {
  if (selector.matchesNothing()) return selector;
  return labelSelectorFromSet(matchLabels).add(...selector.requirements);
}

/** The constraints of one action, parsed; throws when a labelSelector does not parse. */
export function filterTopologySpreadConstraints(constraints: readonly TopologySpreadConstraint[], podLabels: Labels | undefined, action: WhenUnsatisfiable): SpreadConstraint[] {
  const result: SpreadConstraint[] = [];
  for (const c of constraints) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector = labelSelectorFromObject(c.labelSelector);
    if ((c.matchLabelKeys ?? []).length > 0 && podLabels !== undefined) {
      const matchLabels: Record<string, string> = {};
      for (const key of c.matchLabelKeys ?? []) if (Object.hasOwn(podLabels, key)) matchLabels[key] = podLabels[key]!;
      if (Object.keys(matchLabels).length > 0) selector = mergeLabelSetWithSelector(matchLabels, selector);
    }
    result.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector,
      matches: compileLabelSelector(selector),
      minDomains: c.minDomains ?? 1,
      nodeAffinityPolicy: c.nodeAffinityPolicy === 'Ignore' ? 'Ignore' : 'Honor',
      nodeTaintsPolicy: c.nodeTaintsPolicy === 'Honor' ? 'Honor' : 'Ignore',
    });
  }
  return result;
}

/** Whether the node carries every constraint's topology key. */
export function nodeLabelsMatchSpreadConstraints(labels: Labels | undefined, constraints: readonly SpreadConstraint[]): boolean {
  for (const c of constraints) if (labels === undefined || !Object.hasOwn(labels, c.topologyKey)) return false;
  return true;
}

/** The constraints with another selector (default constraints take the pod's default selector). */
export function withSelector(constraints: readonly SpreadConstraint[], selector: LabelSelector): SpreadConstraint[] {
  const matches = compileLabelSelector(selector);
  return constraints.map((c) => ({ ...c, selector, matches }));
}

/** Whether the node counts for the constraint under its nodeAffinityPolicy and nodeTaintsPolicy. */
export function matchNodeInclusionPolicies(c: SpreadConstraint, pod: Pod, node: Node, required: RequiredNodeAffinity): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !required.matches(node)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && findUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations ?? []) !== undefined) return false;
  return true;
}

/** Whether the pod's nodeSelector or required node affinity rules out any node (else nodeAffinityPolicy Honor changes nothing). */
export function podRestrictsNodes(pod: Pod): boolean {
  return Object.keys(pod.spec?.nodeSelector ?? {}).length > 0 || pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution !== undefined;
}

/** Per constraint: whether a node must pass matchNodeInclusionPolicies (false when no policy can exclude it). */
export function needsInclusionCheck(constraints: readonly SpreadConstraint[], pod: Pod): boolean[] {
  const restricts = podRestrictsNodes(pod);
  return constraints.map((c) => (c.nodeAffinityPolicy === 'Honor' && restricts) || c.nodeTaintsPolicy === 'Honor');
}

/** Pods of `namespace` that the constraint's selector selects, terminating ones excluded; an empty selector counts none (as upstream). */
export function countPodsMatchSelector(pods: readonly PodInfo[], c: SpreadConstraint, namespace: string): number {
  if (c.selector.empty()) return 0;
  const matches = c.matches;
  let count = 0;
  for (const p of pods) {
    const meta = p.pod.metadata;
    if ((meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) || (meta.namespace ?? '') !== namespace) continue;
    if (matches(meta.labels)) count++;
  }
  return count;
}

/** Whether the labels are selected by any constraint's selector. */
export function podLabelsMatchSpreadConstraints(constraints: readonly SpreadConstraint[], labels: Labels | undefined): boolean {
  return constraints.some((c) => c.matches(labels));
}
