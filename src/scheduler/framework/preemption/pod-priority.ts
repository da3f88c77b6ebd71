/**
 * How preemption ranks pods (upstream's corev1helpers.PodPriority and
 * scheduler util's MoreImportantPod / GetPodStartTime): by priority, then by
 * how long they have been running.
 */
import type { Pod } from '../types.js';

/** spec.priority, or 0 when it is not set (pods created before priority existed). */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

/**
 * status.startTime in ms since the epoch; `now` for a pod that has not
 * started yet (assumed or just bound), as upstream counts it.
 */
export function podStartTime(pod: Pod, now: number): number {
  const text = pod.status?.startTime;
  if (text === undefined || text === null) return now;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? now : ms;
}

/** Whether `a` is more important than `b`: higher priority, or the same priority and started earlier. */
export function moreImportantPod(a: Pod, b: Pod, now: number): boolean {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pa > pb;
  return podStartTime(a, now) < podStartTime(b, now);
}
