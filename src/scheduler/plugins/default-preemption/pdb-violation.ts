/**
 * Which victims would violate a PodDisruptionBudget (upstream's
 * filterPodsWithPDBViolation): walking the victims in order, each one takes
 * one disruption from every budget of its namespace whose selector matches
 * it; a victim that takes a budget below zero violates it. A pod already in
 * a budget's status.disruptedPods was counted by the API server (an eviction
 * in flight) and takes nothing. The order of the input is kept in both lists.
 */
import { labelSelectorFromObject, type LabelSelector } from '../../../machinery/selectors/label-selector.js';
import type { PodDisruptionBudget } from '../../framework/preemption/evaluator.js';
import type { PodInfo } from '../../framework/types.js';

export interface PDBGrouping {
  readonly violating: PodInfo[];
  readonly nonViolating: PodInfo[];
}

/** The budget's selector; undefined for one that selects nothing (absent, empty or invalid). */
function selectorOf(pdb: PodDisruptionBudget): LabelSelector | undefined {
  try {
    const selector = labelSelectorFromObject(pdb.spec?.selector);
    return selector.empty() || selector.matchesNothing() ? undefined : selector;
  } catch {
    return undefined;
  }
}

export function filterPodsWithPDBViolation(podInfos: readonly PodInfo[], pdbs: readonly PodDisruptionBudget[]): PDBGrouping {
  const allowed = pdbs.map((pdb) => pdb.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map(selectorOf);
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const info of podInfos) {
    const pod = info.pod;
    const labels = pod.metadata.labels;
    let violated = false;
    if (labels !== undefined && Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        if ((pdb.metadata.namespace ?? '') !== (pod.metadata.namespace ?? '')) return;
        const selector = selectors[i];
        if (selector === undefined || !selector.matches(labels)) return;
        if (Object.hasOwn(pdb.status?.disruptedPods ?? {}, pod.metadata.name ?? '')) return;
        allowed[i]! -= 1;
        if (allowed[i]! < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(info);
  }
  return { violating, nonViolating };
}
