/**
 * The scheduler's cache (upstream's backend/cache cacheImpl); see
 * interface.ts for what it is for.
 *
 * Incremental snapshots: the cache keeps its NodeInfos in a doubly linked
 * list, most recently changed first (every change moves the node to the
 * head and bumps its generation). updateSnapshot walks from the head and
 * stops at the first node not newer than the snapshot, so a cycle after one
 * assumed pod copies one NodeInfo. The node list is rebuilt only when nodes
 * were added or removed (or moved zone), the affinity lists only when a node
 * started or stopped holding pods with affinity.
 *
 * Pod states: a pod is either assumed (placed by this scheduler, binding not
 * confirmed) or added (the informer reported it bound). Informer events for
 * pods and nodes never throw: an inconsistency is logged and repaired as
 * well as can be. assumePod and forgetPod throw on misuse, as upstream
 * returns errors there.
 */
import type { Logger } from '../../machinery/logger.js';
import { NodeInfo, nextGeneration, type ImageStateSummary } from '../framework/node-info.js';
import type { Node, Pod } from '../framework/types.js';
import type { SchedulerCache, Snapshot } from './interface.js';
import { NodeTree } from './node-tree.js';
import { CacheSnapshot } from './snapshot.js';

export interface SchedulerCacheOptions {
  /** Where inconsistencies in informer events are reported (default: nowhere). */
  readonly logger?: Logger;
}

interface NodeItem {
  readonly name: string;
  readonly info: NodeInfo;
  prev: NodeItem | undefined;
  next: NodeItem | undefined;
}

interface PodState {
  pod: Pod;
  bindingFinished: boolean;
}

interface ImageState {
  readonly nodes: Set<string>;
  /** Shared by the cache's NodeInfos that have the image; numNodes is kept current. */
  readonly summary: ImageStateSummary;
  /** When its node set last changed. */
  generation: number;
}

function uidOf(pod: Pod): string {
  return pod.metadata.uid ?? '';
}

function nodeNameOf(pod: Pod): string {
  return pod.spec?.nodeName ?? '';
}

function describe(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

export class Cache implements SchedulerCache {
  private readonly nodes = new Map<string, NodeItem>();
  private head: NodeItem | undefined;
  private readonly nodeTree = new NodeTree();
  /** When the set of nodes or their zones last changed. */
  private treeGeneration = 0;
  private readonly podStates = new Map<string, PodState>();
  private readonly assumedPods = new Set<string>();
  private readonly imageStates = new Map<string, ImageState>();
  private imagesGeneration = 0;

  constructor(private readonly options: SchedulerCacheOptions = {}) {}

  // ---- assumed pods ----

  assumePod(pod: Pod): void {
    const uid = uidOf(pod);
    if (this.podStates.has(uid)) throw new Error(`pod ${describe(pod)}(${uid}) is in the cache, so can't be assumed`);
    if (nodeNameOf(pod) === '') throw new Error(`pod ${describe(pod)}(${uid}) has no spec.nodeName, so can't be assumed`);
    this.addPodToNode(pod);
    this.podStates.set(uid, { pod, bindingFinished: false });
    this.assumedPods.add(uid);
  }

  finishBinding(pod: Pod): void {
    const state = this.podStates.get(uidOf(pod));
    if (state !== undefined && this.assumedPods.has(uidOf(pod))) state.bindingFinished = true;
  }

  forgetPod(pod: Pod): void {
    const uid = uidOf(pod);
    const state = this.podStates.get(uid);
    if (state !== undefined && nodeNameOf(state.pod) !== nodeNameOf(pod)) {
      throw new Error(`pod ${describe(pod)}(${uid}) was assumed on ${nodeNameOf(pod)} but assigned to ${nodeNameOf(state.pod)}`);
    }
    if (state === undefined || !this.assumedPods.has(uid)) throw new Error(`pod ${describe(pod)}(${uid}) wasn't assumed so cannot be forgotten`);
    this.removePodState(uid, state.pod);
  }

  isAssumedPod(pod: Pod): boolean {
    return this.assumedPods.has(uidOf(pod));
  }

  /** Whether the bind of an assumed pod was reported finished (tests and debugging). */
  isBindingFinished(pod: Pod): boolean {
    return this.podStates.get(uidOf(pod))?.bindingFinished ?? false;
  }

  // ---- informer events: pods ----

  addPod(pod: Pod): void {
    const uid = uidOf(pod);
    const state = this.podStates.get(uid);
    if (state !== undefined && this.assumedPods.has(uid)) {
      // Confirmed. The pod may have landed on another node than assumed (another scheduler won): it moves.
      if (nodeNameOf(state.pod) !== nodeNameOf(pod)) this.warn('pod was added to a different node than it was assumed', pod, { assumedNode: nodeNameOf(state.pod) });
      this.movePod(state, pod);
      this.assumedPods.delete(uid);
      return;
    }
    if (state !== undefined) {
      this.warn('pod was already in added state', pod);
      this.movePod(state, pod);
      return;
    }
    this.addPodToNode(pod);
    this.podStates.set(uid, { pod, bindingFinished: false });
  }

  updatePod(oldPod: Pod, newPod: Pod): void {
    const uid = uidOf(newPod);
    const state = this.podStates.get(uid);
    if (state === undefined) {
      this.warn('pod is not added to scheduler cache, so cannot be updated; adding it', oldPod);
      this.addPod(newPod);
      return;
    }
    if (this.assumedPods.has(uid)) {
      // An assumed pod gets an add before any update; treat it as the confirmation.
      this.addPod(newPod);
      return;
    }
    if (nodeNameOf(state.pod) !== nodeNameOf(newPod)) this.warn('pod updated on a different node than previously added to', newPod, { previousNode: nodeNameOf(state.pod) });
    this.movePod(state, newPod);
  }

  removePod(pod: Pod): void {
    const uid = uidOf(pod);
    const state = this.podStates.get(uid);
    if (state === undefined) {
      this.warn('pod is not found in scheduler cache, so cannot be removed from it', pod);
      return;
    }
    if (nodeNameOf(state.pod) !== nodeNameOf(pod)) this.warn('pod was removed from a different node than it was added to', pod, { cachedNode: nodeNameOf(state.pod) });
    this.removePodState(uid, state.pod);
  }

  // ---- informer events: nodes ----

  addNode(node: Node): void {
    this.setNode(node);
  }

  updateNode(oldNode: Node, newNode: Node): void {
    void oldNode; // the cache's own copy of the old node is what it indexed by
    this.setNode(newNode);
  }

  removeNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const item = this.nodes.get(name);
    if (item === undefined || item.info.node === undefined) {
      this.log('node is not found in scheduler cache, so cannot be removed from it', { node: name });
      return;
    }
    const cached = item.info.node;
    this.removeNodeImageStates(cached);
    this.nodeTree.removeNode(cached);
    this.treeGeneration = nextGeneration();
    item.info.removeNode();
    // Its pods may still be reported deleted later (another watch): keep them until then.
    if (item.info.pods.length === 0) this.unlink(item);
    else this.moveToHead(item);
  }

  // ---- snapshots ----

  newSnapshot(): Snapshot {
    return new CacheSnapshot();
  }

  updateSnapshot(snapshot: Snapshot): void {
    if (!(snapshot instanceof CacheSnapshot)) throw new Error('updateSnapshot needs a snapshot made by newSnapshot()');
    const since = snapshot.generation;
    let nodesChanged = this.treeGeneration > since;
    const changed: NodeInfo[] = [];
    /** Existing NodeInfos whose affinity-list membership may have flipped, with what they had before. */
    const affinityFlips: Array<{ info: NodeInfo; hadAffinity: boolean; hadAnti: boolean }> = [];
    for (let item = this.head; item !== undefined && item.info.generation > since; item = item.next) {
      if (item.info.node === undefined) continue;
      const clone = item.info.clone();
      snapshot.adoptImageStates(clone);
      const existing = snapshot.nodeInfoMap.get(item.name);
      if (existing === undefined) {
        snapshot.nodeInfoMap.set(item.name, clone);
        nodesChanged = true;
        continue;
      }
      const hadAffinity = existing.podsWithAffinity.length > 0;
      const hadAnti = existing.podsWithRequiredAntiAffinity.length > 0;
      if (hadAffinity !== clone.podsWithAffinity.length > 0 || hadAnti !== clone.podsWithRequiredAntiAffinity.length > 0) {
        affinityFlips.push({ info: existing, hadAffinity, hadAnti });
      }
      // Keep the object: the snapshot's lists hold it.
      Object.assign(existing, clone);
      changed.push(existing);
    }
    if (this.imagesGeneration > since) {
      for (const [name, state] of this.imageStates) {
        if (state.generation <= since) continue;
        snapshot.setImageNumNodes(name, state.nodes.size);
        if (state.nodes.size === 0) this.imageStates.delete(name);
      }
    }
    if (nodesChanged) {
      for (const name of snapshot.nodeInfoMap.keys()) {
        if (this.nodes.get(name)?.info.node === undefined) snapshot.nodeInfoMap.delete(name);
      }
    }
    let listRebuilt = false;
    if (nodesChanged || snapshot.nodeInfoList.length !== this.nodeTree.numNodes) {
      const list: NodeInfo[] = [];
      for (const name of this.nodeTree.list()) {
        const info = snapshot.nodeInfoMap.get(name);
        if (info !== undefined) list.push(info);
      }
      snapshot.nodeInfoList = list;
      snapshot.rebuildAffinityLists();
      listRebuilt = true;
    } else {
      for (const flip of affinityFlips) snapshot.patchAffinityLists(flip.info, flip.hadAffinity, flip.hadAnti);
    }
    // Everything up to now is in; any later change gets a larger generation.
    const generation = nextGeneration();
    snapshot.recordUpdate(since, changed, listRebuilt);
    snapshot.generation = generation;
    snapshot.startLogAt(generation);
  }

  nodeCount(): number {
    return this.nodes.size;
  }

  podCount(): number {
    return this.podStates.size;
  }

  getNodeInfo(nodeName: string): NodeInfo | undefined {
    return this.nodes.get(nodeName)?.info;
  }

  /** Image name → nodes that have it (tests and debugging). */
  imageNodes(image: string): ReadonlySet<string> | undefined {
    return this.imageStates.get(image)?.nodes;
  }

  // ---- internals ----

  private itemFor(nodeName: string): NodeItem {
    let item = this.nodes.get(nodeName);
    if (item === undefined) {
      item = { name: nodeName, info: new NodeInfo(), prev: undefined, next: undefined };
      this.nodes.set(nodeName, item);
      this.linkAtHead(item);
    }
    return item;
  }

  private addPodToNode(pod: Pod): void {
    const item = this.itemFor(nodeNameOf(pod));
    item.info.addPod(pod);
    this.moveToHead(item);
  }

  private removePodFromNode(pod: Pod): void {
    const item = this.nodes.get(nodeNameOf(pod));
    if (item === undefined || !item.info.removePod(pod)) {
      this.warn('pod not found on its node when removing it', pod);
      return;
    }
    if (item.info.pods.length === 0 && item.info.node === undefined) this.unlink(item);
    else this.moveToHead(item);
  }

  private movePod(state: PodState, pod: Pod): void {
    this.removePodFromNode(state.pod);
    this.addPodToNode(pod);
    state.pod = pod;
  }

  private removePodState(uid: string, cached: Pod): void {
    this.removePodFromNode(cached);
    this.podStates.delete(uid);
    this.assumedPods.delete(uid);
  }

  private setNode(node: Node): void {
    const name = node.metadata.name ?? '';
    const item = this.itemFor(name);
    const previous = item.info.node;
    if (previous !== undefined) this.removeNodeImageStates(previous);
    const treeChanged = previous === undefined ? this.nodeTree.addNode(node) : this.nodeTree.updateNode(previous, node);
    if (treeChanged) this.treeGeneration = nextGeneration();
    this.addNodeImageStates(node, item.info);
    item.info.setNode(node);
    this.moveToHead(item);
  }

  private addNodeImageStates(node: Node, info: NodeInfo): void {
    const nodeName = node.metadata.name ?? '';
    const summaries = new Map<string, ImageStateSummary>();
    for (const image of node.status?.images ?? []) {
      for (const name of image.names ?? []) {
        let state = this.imageStates.get(name);
        if (state === undefined) {
          state = { nodes: new Set(), summary: { size: image.sizeBytes ?? 0, numNodes: 0 }, generation: 0 };
          this.imageStates.set(name, state);
        }
        if (!state.nodes.has(nodeName)) {
          state.nodes.add(nodeName);
          state.summary.numNodes = state.nodes.size;
          state.generation = this.imagesGeneration = nextGeneration();
        }
        summaries.set(name, state.summary);
      }
    }
    info.imageStates = summaries;
  }

  private removeNodeImageStates(node: Node): void {
    const nodeName = node.metadata.name ?? '';
    for (const image of node.status?.images ?? []) {
      for (const name of image.names ?? []) {
        const state = this.imageStates.get(name);
        if (state === undefined || !state.nodes.delete(nodeName)) continue;
        state.summary.numNodes = state.nodes.size;
        state.generation = this.imagesGeneration = nextGeneration();
      }
    }
  }

  private linkAtHead(item: NodeItem): void {
    item.prev = undefined;
    item.next = this.head;
    if (this.head !== undefined) this.head.prev = item;
    this.head = item;
  }

  private detach(item: NodeItem): void {
    if (item.prev !== undefined) item.prev.next = item.next;
    if (item.next !== undefined) item.next.prev = item.prev;
    if (this.head === item) this.head = item.next;
    item.prev = undefined;
    item.next = undefined;
  }

  private moveToHead(item: NodeItem): void {
    if (this.head === item) return;
    this.detach(item);
    this.linkAtHead(item);
  }

  private unlink(item: NodeItem): void {
    this.detach(item);
    this.nodes.delete(item.name);
  }

  private warn(message: string, pod: Pod, extra: Record<string, string> = {}): void {
    this.log(message, { pod: describe(pod), uid: uidOf(pod), node: nodeNameOf(pod), ...extra });
  }

  private log(message: string, fields: Record<string, string>): void {
    this.options.logger?.warn(fields, message);
  }
}

/** The scheduler's cache. */
export function newSchedulerCache(options: SchedulerCacheOptions = {}): Cache {
  return new Cache(options);
}

/**
 * A snapshot of these pods and nodes (upstream's cache.NewSnapshot), for
 * plugin tests: pods with spec.nodeName land on their nodes.
 */
export function newSnapshotOf(pods: readonly Pod[], nodes: readonly Node[]): CacheSnapshot {
  const cache = new Cache();
  for (const node of nodes) cache.addNode(node);
  for (const pod of pods) if (nodeNameOf(pod) !== '') cache.addPod(pod);
  const snapshot = new CacheSnapshot();
  cache.updateSnapshot(snapshot);
  return snapshot;
}
