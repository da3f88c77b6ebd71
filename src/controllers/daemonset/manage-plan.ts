/**
 * What the DaemonSet controller's core loop must create and delete so that
 * every eligible node runs exactly one daemon pod (upstream's manage and
 * podsShouldBeOnNode): pure, over the cache's state.
 *
 * - a node that should run the pod and has none gets one;
 * - failed pods are deleted (with a per-node backoff the caller keeps, since
 *   a kubelet that rejects a pod would otherwise make the two fight),
 *   succeeded ones too;
 * - without surge, all but the oldest running pod on a node are deleted; with
 *   surge, one old and one new pod may coexist while the new one is not yet
 *   available;
 * - pods on nodes that may no longer run them are deleted, and unscheduled
 *   pods whose node is gone (the pod garbage collector cannot see them).
 */
import { isPodAvailable, isPodReady } from '../util/pod-readiness.js';
import { POD_REVISION_LABEL } from '../history/controller-revision.js';
import { scaledValue } from './int-or-percent.js';
import { nodeShouldRunDaemonPod } from './node-eligibility.js';
import { sortPodsOldestFirst } from './pods-by-node.js';
import type { DaemonSetObject, NodeObject, PodObject } from './types.js';

export interface PlannedEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface ManagePlan {
  readonly nodesNeedingPods: string[];
  readonly podsToDelete: string[];
  readonly events: PlannedEvent[];
  /** Nodes whose failed pod is being deleted now: the caller advances their backoff. */
  readonly failedPodNodes: string[];
  /** The shortest backoff still holding back a failed pod's deletion: reconcile again then. */
  readonly requeueAfterMs?: number;
}

export interface ManageInput {
  readonly ds: DaemonSetObject;
  readonly nodes: readonly NodeObject[];
  /** Claimed pods by target node (podsByNode without deleted terminal pods). */
  readonly podsByNode: ReadonlyMap<string, readonly PodObject[]>;
  readonly hash: string;
  readonly now: Date;
  /** Milliseconds a failed pod on this node must still wait before it is deleted (undefined: not in backoff). */
  readonly failedPodBackoffMs?: (nodeName: string) => number | undefined;
}

/** The DaemonSet allows two pods on a node during an update (maxSurge above 0 under RollingUpdate). */
export function allowsSurge(ds: DaemonSetObject): boolean {
  const strategy = ds.spec?.updateStrategy;
  if (strategy?.type !== 'RollingUpdate' || strategy.rollingUpdate === undefined) return false;
  try {
    return scaledValue(strategy.rollingUpdate.maxSurge, 1, true) > 0;
  } catch {
    return false;
  }
}

export function planManage(input: ManageInput): ManagePlan {
  const { ds, hash, now } = input;
  const nodesNeedingPods: string[] = [];
  const podsToDelete: string[] = [];
  const events: PlannedEvent[] = [];
  const failedPodNodes: string[] = [];
  let requeueAfterMs: number | undefined;
  const surge = allowsSurge(ds);
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;

  for (const node of input.nodes) {
    const nodeName = node.metadata.name ?? '';
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const daemonPods = input.podsByNode.get(nodeName);
    const exists = daemonPods !== undefined;

    if (shouldRun && !exists) {
      nodesNeedingPods.push(nodeName);
      continue;
    }
    if (!shouldContinueRunning) {
      if (exists) for (const pod of daemonPods) if (!pod.metadata.deletionTimestamp) podsToDelete.push(pod.metadata.name ?? '');
      continue;
    }

    const running: PodObject[] = [];
    for (const pod of daemonPods ?? []) {
      if (pod.metadata.deletionTimestamp) continue;
      const where = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} on node ${nodeName}`;
      if (pod.status?.phase === 'Failed') {
        const wait = input.failedPodBackoffMs?.(nodeName);
        if (wait !== undefined && wait > 0) {
          requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
          continue;
        }
        failedPodNodes.push(nodeName);
        events.push({ type: 'Warning', reason: 'FailedDaemonPod', message: `Found failed daemon pod ${where}, will try to kill it` });
        podsToDelete.push(pod.metadata.name ?? '');
      } else if (pod.status?.phase === 'Succeeded') {
        events.push({ type: 'Normal', reason: 'SucceededDaemonPod', message: `Found succeeded daemon pod ${where}, will try to delete it` });
        podsToDelete.push(pod.metadata.name ?? '');
      } else {
        running.push(pod);
      }
    }

    if (!surge) {
      // Keep the oldest; the others are excess.
      for (const pod of sortPodsOldestFirst(running).slice(1)) podsToDelete.push(pod.metadata.name ?? '');
      continue;
    }
    if (running.length <= 1) {
      if (running.length === 0 && shouldRun) nodesNeedingPods.push(nodeName);
      continue;
    }
    // Surging: keep the oldest new pod and the oldest old pod; the old one goes once it is not ready or the new one is available.
    let oldestNew: PodObject | undefined;
    let oldestOld: PodObject | undefined;
    for (const pod of sortPodsOldestFirst(running)) {
      const isNew = pod.metadata.labels?.[POD_REVISION_LABEL] === hash;
      if (isNew && oldestNew === undefined) oldestNew = pod;
      else if (!isNew && oldestOld === undefined) oldestOld = pod;
      else podsToDelete.push(pod.metadata.name ?? '');
    }
    if (oldestNew !== undefined && oldestOld !== undefined) {
      if (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReadySeconds, now)) podsToDelete.push(oldestOld.metadata.name ?? '');
    }
  }

  // Unscheduled pods meant for nodes that no longer exist.
  const existing = new Set(input.nodes.map((n) => n.metadata.name ?? ''));
  for (const [nodeName, pods] of input.podsByNode) {
    if (existing.has(nodeName)) continue;
    for (const pod of pods) if (!pod.spec?.nodeName) podsToDelete.push(pod.metadata.name ?? '');
  }

  return { nodesNeedingPods, podsToDelete, events, failedPodNodes, ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}) };
}
