/**
 * A DaemonSet's status from its nodes and pods (upstream's
 * updateDaemonSetStatus): per node that should run the pod, whether one is
 * scheduled there and whether the oldest is ready, available and updated;
 * pods on nodes that should not run one are misscheduled.
 */
import type { DaemonSetStatus } from 'kubernetes-types/apps/v1.js';
import { isPodAvailable, isPodReady } from '../util/pod-readiness.js';
import { nodeShouldRunDaemonPod } from './node-eligibility.js';
import { isPodUpdated, templateGeneration } from './pod-template.js';
import { sortPodsOldestFirst } from './pods-by-node.js';
import type { DaemonSetObject, NodeObject, PodObject } from './types.js';

export type DaemonSetCounts = Required<
  Pick<
    DaemonSetStatus,
    'desiredNumberScheduled' | 'currentNumberScheduled' | 'numberMisscheduled' | 'numberReady' | 'updatedNumberScheduled' | 'numberAvailable' | 'numberUnavailable'
  >
>;

export function daemonSetCounts(options: {
  readonly ds: DaemonSetObject;
  readonly nodes: readonly NodeObject[];
  readonly podsByNode: ReadonlyMap<string, readonly PodObject[]>;
  readonly hash: string;
  readonly now: Date;
}): DaemonSetCounts {
  const { ds, hash, now } = options;
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const generation = templateGeneration(ds);
  const counts = { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0 };
  for (const node of options.nodes) {
    const pods = options.podsByNode.get(node.metadata.name ?? '') ?? [];
    const scheduled = pods.length > 0;
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) {
      if (scheduled) counts.numberMisscheduled++;
      continue;
    }
    counts.desiredNumberScheduled++;
    if (!scheduled) continue;
    counts.currentNumberScheduled++;
    const pod = sortPodsOldestFirst(pods)[0]!;
    if (isPodReady(pod)) {
      counts.numberReady++;
      if (isPodAvailable(pod, minReadySeconds, now)) counts.numberAvailable++;
    }
    if (isPodUpdated(pod, hash, generation)) counts.updatedNumberScheduled++;
  }
  return { ...counts, numberUnavailable: counts.desiredNumberScheduled - counts.numberAvailable };
}

/** The status already says this (and has observed the generation when it should): no write needed. */
export function statusUpToDate(ds: DaemonSetObject, counts: DaemonSetCounts): boolean {
  const status = ds.status ?? ({} as Partial<DaemonSetStatus>);
  const same = (Object.keys(counts) as (keyof DaemonSetCounts)[]).every((k) => (status[k] ?? 0) === counts[k]);
  return same && (status.observedGeneration ?? 0) >= (ds.metadata.generation ?? 0);
}
