/**
 * One step of a DaemonSet's RollingUpdate (upstream's rollingUpdate in
 * daemon/update.go), pure over the cache's state. The core loop (manage)
 * creates missing pods; this step only picks old pods to delete, or (with
 * maxSurge) nodes to get a new pod beside the old one.
 *
 * Without surge: delete every old pod that is not available (it counts as
 * unavailable already), then old available pods while fewer than
 * maxUnavailable of the desired nodes lack an available pod.
 * With surge: create a new pod beside each unavailable old one, and beside
 * up to maxSurge available old ones; delete an old pod once the new one
 * beside it is available. A node that no longer fits loses its old pod only
 * as other nodes' pods become available, so availability never dips.
 */
import { isPodAvailable } from '../util/pod-readiness.js';
import { scaledValue } from './int-or-percent.js';
import { nodeShouldRunDaemonPod } from './node-eligibility.js';
import { isPodUpdated, templateGeneration } from './pod-template.js';
import type { DaemonSetObject, NodeObject, PodObject } from './types.js';

export interface RollingUpdateInput {
  readonly ds: DaemonSetObject;
  readonly nodes: readonly NodeObject[];
  /** Claimed pods by target node (without deleted terminal pods). */
  readonly podsByNode: ReadonlyMap<string, readonly PodObject[]>;
  readonly hash: string;
  readonly now: Date;
}

export interface RollingUpdatePlan {
  readonly podsToDelete: string[];
  readonly nodesNeedingPods: string[];
}

export interface UpdateBudget {
  readonly maxSurge: number;
  readonly maxUnavailable: number;
  readonly desiredNumberScheduled: number;
}

/** maxSurge and maxUnavailable scaled against the nodes that should run the pod; both 0 means maxUnavailable 1 (upstream's fallback). */
export function updateBudget(ds: DaemonSetObject, nodes: readonly NodeObject[]): UpdateBudget {
  const desiredNumberScheduled = nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).length;
  const rolling = ds.spec?.updateStrategy?.type === 'RollingUpdate' ? ds.spec.updateStrategy.rollingUpdate : undefined;
  let maxUnavailable = rolling === undefined ? 0 : scaledValue(rolling.maxUnavailable, desiredNumberScheduled, true);
  const maxSurge = rolling === undefined ? 0 : scaledValue(rolling.maxSurge, desiredNumberScheduled, true);
  if (desiredNumberScheduled > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable, desiredNumberScheduled };
}

interface NodePods {
  readonly newPod?: PodObject;
  readonly oldPod?: PodObject;
}

/** At most one new and one old live pod on the node, or undefined when there are more (the core loop prunes them first). */
function splitNodePods(pods: readonly PodObject[], hash: string, generation: string | undefined): NodePods | undefined {
  let newPod: PodObject | undefined;
  let oldPod: PodObject | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod !== undefined) return undefined;
      newPod = pod;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = pod;
    }
  }
  return { ...(newPod !== undefined ? { newPod } : {}), ...(oldPod !== undefined ? { oldPod } : {}) };
}

export function planRollingUpdate(input: RollingUpdateInput): RollingUpdatePlan {
  const { ds, hash, now } = input;
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const available = (pod: PodObject): boolean => isPodAvailable(pod, minReadySeconds, now);
  const generation = templateGeneration(ds);
  const { maxSurge, maxUnavailable, desiredNumberScheduled } = updateBudget(ds, input.nodes);
  const nodesByName = new Map(input.nodes.map((n) => [n.metadata.name ?? '', n]));

  // Every node that should run the pod takes part, with or without pods.
  const byNode = new Map<string, readonly PodObject[]>(input.podsByNode);
  for (const node of input.nodes) {
    const name = node.metadata.name ?? '';
    if (!byNode.has(name) && nodeShouldRunDaemonPod(node, ds).shouldRun) byNode.set(name, []);
  }
  const shouldRun = (nodeName: string): boolean => {
    const node = nodesByName.get(nodeName);
    return node !== undefined && nodeShouldRunDaemonPod(node, ds).shouldRun;
  };

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const replacements: string[] = [];
    const candidates: string[] = [];
    for (const pods of byNode.values()) {
      const split = splitNodePods(pods, hash, generation);
      if (split === undefined) {
        numUnavailable++;
        continue;
      }
      const { newPod, oldPod } = split;
      if ((oldPod === undefined) === (newPod === undefined)) {
        numUnavailable++; // nothing yet, or both: the core loop acts here
      } else if (newPod !== undefined) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod !== undefined) {
        if (!available(oldPod)) {
          replacements.push(oldPod.metadata.name ?? '');
          numUnavailable++;
        } else if (numUnavailable < maxUnavailable) {
          candidates.push(oldPod.metadata.name ?? '');
        }
      }
    }
    const room = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
    return { podsToDelete: [...replacements, ...candidates.slice(0, room)], nodesNeedingPods: [] };
  }

  const podsToDelete: string[] = [];
  const shouldNotRun: string[] = [];
  const candidateNodes: string[] = [];
  const allowedNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [nodeName, pods] of byNode) {
    const split = splitNodePods(pods, hash, generation);
    if (split === undefined) {
      numSurge++;
      continue;
    }
    const { newPod, oldPod } = split;
    if (oldPod !== undefined ? available(oldPod) : newPod !== undefined && available(newPod)) numAvailable++;
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!available(oldPod)) {
        if (!shouldRun(nodeName)) podsToDelete.push(oldPod.metadata.name ?? '');
        else allowedNodes.push(nodeName);
      } else if (!shouldRun(nodeName)) {
        shouldNotRun.push(oldPod.metadata.name ?? '');
      } else if (numSurge < maxSurge) {
        candidateNodes.push(nodeName);
      }
      continue;
    }
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    podsToDelete.push(oldPod.metadata.name ?? '');
  }
  const deletable = Math.min(Math.max(0, numAvailable - desiredNumberScheduled), shouldNotRun.length);
  podsToDelete.push(...shouldNotRun.slice(0, deletable));
  const room = Math.min(Math.max(0, maxSurge - numSurge), candidateNodes.length);
  return { podsToDelete, nodesNeedingPods: [...allowedNodes, ...candidateNodes.slice(0, room)] };
}
