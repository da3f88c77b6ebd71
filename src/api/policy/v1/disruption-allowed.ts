/**
 * The DisruptionAllowed condition of a PodDisruptionBudget, written by both
 * the disruption controller and the API server's eviction subresource (when
 * an eviction spends the last allowed disruption), as upstream's
 * UpdateDisruptionAllowedCondition and meta.SetStatusCondition do.
 */
import type { Condition } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { formatTime } from '../../../machinery/meta.js';

export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
export const SUFFICIENT_PODS_REASON = 'SufficientPods';
export const INSUFFICIENT_PODS_REASON = 'InsufficientPods';
export const SYNC_FAILED_REASON = 'SyncFailed';

/**
 * Set a condition by type: a new one is added; an existing one keeps its
 * lastTransitionTime unless its status changes (upstream's SetStatusCondition).
 */
export function setStatusCondition(conditions: Condition[], next: Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string }, now = new Date()): void {
  const index = conditions.findIndex((c) => c.type === next.type);
  const old = index < 0 ? undefined : conditions[index]!;
  const lastTransitionTime = old !== undefined && old.status === next.status ? old.lastTransitionTime : (next.lastTransitionTime ?? formatTime(now));
  const condition: Condition = { ...next, message: next.message ?? '', lastTransitionTime };
  if (index < 0) conditions.push(condition);
  else conditions[index] = condition;
}

/** DisruptionAllowed True (SufficientPods) when disruptionsAllowed > 0, else False (InsufficientPods). */
export function updateDisruptionAllowedCondition(pdb: PodDisruptionBudget, now = new Date()): void {
  const status = pdb.status!;
  const conditions = (status.conditions ??= []);
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    conditions,
    {
      type: DISRUPTION_ALLOWED_CONDITION,
      status: allowed ? 'True' : 'False',
      reason: allowed ? SUFFICIENT_PODS_REASON : INSUFFICIENT_PODS_REASON,
      message: '',
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    },
    now,
  );
}
