/**
 * The arithmetic of a PodDisruptionBudget's status, as upstream's disruption
 * controller computes it: how many pods are expected (from the scale of the
 * pods' controllers, or the pods themselves for an integer minAvailable), how
 * many must stay healthy, how many are healthy, and so how many may be
 * disrupted now. Pure functions over objects; the controller feeds them.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';

/** How long a pod the eviction subresource approved may take to go before it counts as healthy again (upstream's DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/**
 * An int-or-percent against a total, as upstream's GetScaledValueFromIntOrPercent:
 * `"25%"` of 10 is 3 rounding up, 2 rounding down; a string without `%` is an error.
 */
export function scaledValue(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const match = /^(-?\d+)%$/.exec(value);
  if (match === null) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

export interface ExpectedCount {
  readonly expectedCount: number;
  readonly desiredHealthy: number;
  /** Pods without a controller (only looked at when the scale of controllers matters). */
  readonly unmanagedPods: readonly string[];
}

/**
 * Upstream's getExpectedPodCount. `expectedScale` sums the scale of the pods'
 * controllers (it throws when a controller cannot be found); it is only asked
 * for maxUnavailable and a percentage minAvailable.
 */
export async function expectedPodCount(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  expectedScale: () => Promise<{ expectedCount: number; unmanagedPods: readonly string[] }>,
): Promise<ExpectedCount> {
  const spec = pdb.spec ?? {};
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const { expectedCount, unmanagedPods } = await expectedScale();
    const maxUnavailable = scaledValue(spec.maxUnavailable, expectedCount, true);
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable), unmanagedPods };
  }
  if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    if (typeof spec.minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: spec.minAvailable, unmanagedPods: [] };
    const { expectedCount, unmanagedPods } = await expectedScale();
    return { expectedCount, desiredHealthy: scaledValue(spec.minAvailable, expectedCount, true), unmanagedPods };
  }
  return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
}

const isTerminating = (pod: Pod): boolean => pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;

export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * Upstream's buildDisruptedPodMap: the pods the eviction subresource approved
 * that still exist and are not yet terminating, dropping those older than the
 * deletion timeout; `recheckAfterMs` is when the oldest kept entry expires.
 */
export function disruptedPodMap(
  pods: readonly Pod[],
  recorded: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): { disruptedPods: Record<string, string>; recheckAfterMs?: number } {
  const disruptedPods: Record<string, string> = {};
  let recheckAt: number | undefined;
  if (recorded === undefined) return { disruptedPods };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (isTerminating(pod)) continue;
    const at = recorded[name];
    if (at === undefined) continue;
    const expiresAt = Date.parse(at) + DELETION_TIMEOUT_MS;
    // The pod was expected to be deleted but was not: it counts again.
    if (Number.isNaN(expiresAt) || expiresAt < nowMs) continue;
    disruptedPods[name] = at;
    recheckAt = recheckAt === undefined ? expiresAt : Math.min(recheckAt, expiresAt);
  }
  return recheckAt === undefined ? { disruptedPods } : { disruptedPods, recheckAfterMs: recheckAt - nowMs };
}

/** Upstream's countHealthyPods: ready pods that are neither terminating nor about to be evicted. */
export function countHealthyPods(pods: readonly Pod[], disruptedPods: Readonly<Record<string, string>>, nowMs: number): number {
  let healthy = 0;
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const at = disruptedPods[pod.metadata?.name ?? ''];
    if (at !== undefined && Date.parse(at) + DELETION_TIMEOUT_MS > nowMs) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/** disruptionsAllowed: healthy beyond desired, never negative, 0 when no pod is expected. */
export function disruptionsAllowed(currentHealthy: number, desiredHealthy: number, expectedCount: number): number {
  const allowed = currentHealthy - desiredHealthy;
  return expectedCount <= 0 || allowed <= 0 ? 0 : allowed;
}
