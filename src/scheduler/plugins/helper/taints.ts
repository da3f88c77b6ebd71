/**
 * Taint checks shared by TaintToleration, NodeUnschedulable and
 * PodTopologySpread's nodeTaintsPolicy (upstream's v1helper
 * TolerationsTolerateTaint and FindMatchingUntoleratedTaint).
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { toleratesTaint } from '../../../api/core/v1/toleration.js';

export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** Taints that keep pods off a node: NoSchedule and NoExecute (upstream's DoNotScheduleTaintsFilterFunc). */
export const isDoNotScheduleTaint = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';

/** The first NoSchedule/NoExecute taint (in the node's order) that no toleration tolerates. */
export function findUntoleratedTaint(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[]): Taint | undefined {
  if (taints === undefined) return undefined;
  for (const taint of taints) if (isDoNotScheduleTaint(taint) && !tolerationsTolerateTaint(tolerations, taint)) return taint;
  return undefined;
}
