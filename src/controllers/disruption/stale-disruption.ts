/**
 * The disruption controller's second duty (upstream since 1.26): a pod that
 * was marked DisruptionTarget=True (by the eviction subresource, the taint
 * eviction controller, …) but is still not being deleted two minutes later
 * was not disrupted after all (the delete failed or was refused), so its
 * condition is turned False again. Conditions the kubelet added, and those of
 * finished pods, are left alone.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import type { ResourceClient } from '../../client/rest/interface.js';
import { deepCopy, formatTime, type KubeObject } from '../../machinery/meta.js';
import type { ReconcileResult } from '../reconcile-loop.js';

type PodObject = KubeObject & Pod;

/** Upstream's stalePodDisruptionTimeout. */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

/** Whether the pod carries a DisruptionTarget=True that may go stale, and how long until it is. */
export function staleDisruptionIn(pod: Pod, nowMs: number, timeoutMs = STALE_POD_DISRUPTION_TIMEOUT_MS): number | undefined {
  if (pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) return undefined;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return undefined;
  const condition = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  if (condition === undefined || condition.status !== 'True' || condition.reason === 'TerminationByKubelet') return undefined;
  const since = Date.parse(condition.lastTransitionTime ?? '');
  return Number.isNaN(since) ? 0 : Math.max(0, since + timeoutMs - nowMs);
}

export class StaleDisruptionCleaner {
  constructor(
    private readonly pods: Indexer<PodObject>,
    private readonly client: ResourceClient<PodObject>,
    private readonly now: () => number = Date.now,
  ) {}

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const pod = this.pods.get(key);
    if (pod === undefined) return;
    const now = this.now();
    const wait = staleDisruptionIn(pod, now);
    if (wait === undefined) return;
    if (wait > 0) return { requeueAfterMs: wait };
    const copy = deepCopy(pod);
    const conditions = (copy.status?.conditions ?? []).map((c) =>
      c.type === 'DisruptionTarget' ? { ...c, status: 'False', lastTransitionTime: formatTime(new Date(now)) } : c,
    );
    await this.client.updateStatus({ ...copy, status: { ...copy.status, conditions } });
  }
}
