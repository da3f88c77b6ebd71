/**
 * Which pods a controller deletes first when it has too many: upstream's
 * ActivePodsWithRanks ordering, with pod-deletion-cost and logarithmic
 * scale-down (both on by default upstream):
 * 1. unassigned < assigned;
 * 2. Pending < Unknown < Running;
 * 3. not ready < ready;
 * 4. lower controller.kubernetes.io/pod-deletion-cost < higher;
 * 5. more related pods on the same node < fewer (doubled-up pods go first);
 * 6. among ready pods: ready more recently < ready longer (in log2 buckets of
 *    the time since, ties broken by uid);
 * 7. more container restarts < fewer;
 * 8. created more recently < created earlier (log2 buckets, ties by uid).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodActive, isPodReady, podReadySince } from './pod-readiness.js';

export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/** The pod's deletion cost; 0 when absent or not an int32 (upstream ignores a bad value here: validation rejects it). */
export function podDeletionCost(pod: Pod): number {
  const text = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const value = Number(text);
  return value >= -(2 ** 31) && value < 2 ** 31 ? value : 0;
}

function maxRestarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}

function timeOf(text: string | undefined | null): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** log2 of the nanoseconds since `t` (−1 for the future), as upstream buckets times. */
function logRank(t: number, now: number): number {
  const ns = (now - t) * 1e6;
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
}

/**
 * Negative when `a` should be deleted before `b`: compares two times where a
 * missing time goes first, else the later time goes first (bucketed by log2
 * of the age when `now` is given; equal buckets fall back to uid order).
 */
function compareRecentFirst(a: Pod, ta: number | undefined, b: Pod, tb: number | undefined, now: number | undefined): number {
  if (ta === tb) return 0;
  if (ta === undefined) return -1;
  if (tb === undefined) return 1;
  if (now === undefined) return tb - ta;
  const diff = logRank(ta, now) - logRank(tb, now);
  if (diff !== 0) return diff;
  const ua = a.metadata?.uid ?? '';
  const ub = b.metadata?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

export interface RankedPod<P extends Pod = Pod> {
  readonly pod: P;
  /** How many related active pods share the pod's node (upstream's rank). */
  readonly colocated: number;
}

/** Negative when `a` should be deleted before `b`. */
export function comparePodsForDeletion(a: RankedPod, b: RankedPod, now?: Date): number {
  const pa = a.pod;
  const pb = b.pod;
  const na = pa.spec?.nodeName ?? '';
  const nb = pb.spec?.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '' ? -1 : 1;
  const oa = PHASE_ORDINAL[pa.status?.phase ?? ''] ?? 0;
  const ob = PHASE_ORDINAL[pb.status?.phase ?? ''] ?? 0;
  if (oa !== ob) return oa - ob;
  const ra = isPodReady(pa);
  const rb = isPodReady(pb);
  if (ra !== rb) return ra ? 1 : -1;
  const ca = podDeletionCost(pa);
  const cb = podDeletionCost(pb);
  if (ca !== cb) return ca - cb;
  if (a.colocated !== b.colocated) return b.colocated - a.colocated;
  const nowMs = now?.getTime();
  if (ra && rb) {
    const byReady = compareRecentFirst(pa, podReadySince(pa), pb, podReadySince(pb), nowMs);
    if (byReady !== 0) return byReady;
  }
  const restarts = maxRestarts(pb) - maxRestarts(pa);
  if (restarts !== 0) return restarts;
  return compareRecentFirst(pa, timeOf(pa.metadata?.creationTimestamp), pb, timeOf(pb.metadata?.creationTimestamp), nowMs);
}

/**
 * The `count` pods to delete first out of `pods`; `related` (a superset:
 * the pods of the controller and its siblings) gives each pod's number of
 * colocated active pods.
 */
export function podsToDelete<P extends Pod>(pods: readonly P[], count: number, options: { readonly related?: readonly Pod[]; readonly now?: Date } = {}): P[] {
  if (count <= 0) return [];
  if (count >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  for (const pod of options.related ?? pods) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? '';
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const ranked: RankedPod<P>[] = pods.map((pod) => ({ pod, colocated: perNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((a, b) => comparePodsForDeletion(a, b, options.now));
  return ranked.slice(0, count).map((r) => r.pod);
}
