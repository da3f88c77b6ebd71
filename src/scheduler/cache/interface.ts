/**
 * The scheduler's cache of nodes and the pods on them (upstream's
 * internal/cache). It includes *assumed* pods: as soon as a pod is placed,
 * the scheduler assumes it onto its node here and schedules the next pod at
 * once, while the bind request is still on its way; when the informer later
 * reports the pod bound (addPod), the assumption is confirmed. If binding
 * fails, forgetPod undoes it.
 *
 * Each cycle works on a Snapshot: updateSnapshot copies only the NodeInfos
 * whose generation moved since the last cycle, so a cycle costs O(changes),
 * not O(nodes). The snapshot's node list is ordered by the node tree: zones
 * interleaved round-robin (node 1 of zone a, node 1 of zone b, …), as upstream,
 * so that a partial walk of the nodes still spreads across zones.
 */
import type { NodeInfo } from '../framework/node-info.js';
import type { NodeInfoLister, SharedLister } from '../framework/interfaces.js';
import type { Node, Pod } from '../framework/types.js';

/** One cycle's view; the same object is refreshed by updateSnapshot. */
export interface Snapshot extends SharedLister, NodeInfoLister {
  /** Number of nodes. */
  readonly numNodes: number;
  /** The cache generation this snapshot was last brought up to. */
  readonly generation: number;
}

export interface SchedulerCache {
  /** A pod placed by this scheduler, before its binding is confirmed (pod.spec.nodeName set to the chosen node). */
  assumePod(pod: Pod): void;
  /** The bind request succeeded (the informer will confirm it). */
  finishBinding(pod: Pod): void;
  /** Binding failed: remove the assumed pod. */
  forgetPod(pod: Pod): void;
  isAssumedPod(pod: Pod): boolean;
  /** Informer events for pods with spec.nodeName set (assigned pods). */
  addPod(pod: Pod): void;
  updatePod(oldPod: Pod, newPod: Pod): void;
  removePod(pod: Pod): void;
  /** Informer events for nodes. */
  addNode(node: Node): void;
  updateNode(oldNode: Node, newNode: Node): void;
  removeNode(node: Node): void;
  /** Bring the snapshot up to date (incrementally). */
  updateSnapshot(snapshot: Snapshot): void;
  /** A snapshot to pass to updateSnapshot (empty until the first update). */
  newSnapshot(): Snapshot;
  nodeCount(): number;
  podCount(): number;
  /** A NodeInfo of the cache itself (tests and debugging only; never mutate). */
  getNodeInfo(nodeName: string): NodeInfo | undefined;
}
