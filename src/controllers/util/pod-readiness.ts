/**
 * When a pod counts as ready and as available, as upstream's podutil does:
 * ready is the Ready condition True; available is ready for at least
 * minReadySeconds (measured from the condition's lastTransitionTime).
 */
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';

export function podReadyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: Pod): boolean {
  return podReadyCondition(pod)?.status === 'True';
}

/** Milliseconds since the epoch when the pod became ready, or undefined when it is not ready or the time is unknown. */
export function podReadySince(pod: Pod): number | undefined {
  const condition = podReadyCondition(pod);
  if (condition?.status !== 'True' || !condition.lastTransitionTime) return undefined;
  const ms = Date.parse(condition.lastTransitionTime);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Ready, and ready for longer than minReadySeconds at `now` (upstream's
 * IsPodAvailable: a ready pod without a transition time is available only
 * when minReadySeconds is 0).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 < now.getTime();
}

/**
 * How long until a ready but not yet available pod becomes available
 * (undefined for a pod that is not ready or already available), so that a
 * controller can re-check exactly then.
 */
export function msUntilAvailable(pod: Pod, minReadySeconds: number, now: Date): number | undefined {
  if (minReadySeconds <= 0 || !isPodReady(pod)) return undefined;
  const since = podReadySince(pod);
  if (since === undefined) return undefined;
  const remaining = since + minReadySeconds * 1000 - now.getTime();
  return remaining >= 0 ? remaining + 1 : undefined;
}

/** Neither succeeded nor failed, and not being deleted (upstream's IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** Failed, or being deleted: a pod a ReplicaSet no longer counts (upstream's IsPodTerminating for the terminating replicas count). */
export function isPodTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !!pod.metadata?.deletionTimestamp;
}
