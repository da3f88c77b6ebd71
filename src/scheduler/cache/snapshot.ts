/**
 * One scheduling cycle's view of the cluster (upstream's backend/cache
 * Snapshot): clones of the cache's NodeInfos, so that nothing the cache
 * learns during a cycle changes what the cycle sees. The cache refreshes it
 * in place (SchedulerCache.updateSnapshot), copying only what changed.
 */
import type { NodeInfoLister } from '../framework/interfaces.js';
import type { ImageStateSummary, NodeInfo } from '../framework/node-info.js';
import type { Snapshot } from './interface.js';

export class CacheSnapshot implements Snapshot {
  /** Node name → NodeInfo; only nodes the cache has a Node object for. */
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  /** In the node tree's zone-interleaved order. */
  nodeInfoList: NodeInfo[] = [];
  havePodsWithAffinityNodeInfoList: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinityNodeInfoList: NodeInfo[] = [];
  /**
   * Image name → summary, shared by this snapshot's NodeInfos (their
   * imageStates point here), so that numNodes is right on every node after
   * one update, without copying the nodes that did not change.
   */
  readonly imageSummaries = new Map<string, ImageStateSummary>();
  generation = 0;

  get numNodes(): number {
    return this.nodeInfoList.length;
  }

  nodeInfos(): NodeInfoLister {
    return this;
  }

  list(): readonly NodeInfo[] {
    return this.nodeInfoList;
  }

  havePodsWithAffinityList(): readonly NodeInfo[] {
    return this.havePodsWithAffinityNodeInfoList;
  }

  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[] {
    return this.havePodsWithRequiredAntiAffinityNodeInfoList;
  }

  get(nodeName: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(nodeName);
  }

  /** Point a fresh clone's image states at this snapshot's shared summaries. */
  adoptImageStates(info: NodeInfo): void {
    for (const [name, summary] of info.imageStates) {
      let shared = this.imageSummaries.get(name);
      if (shared === undefined) this.imageSummaries.set(name, (shared = { size: summary.size, numNodes: summary.numNodes }));
      info.imageStates.set(name, shared);
    }
  }

  /** An image's node count changed in the cache. */
  setImageNumNodes(name: string, numNodes: number): void {
    if (numNodes <= 0) {
      this.imageSummaries.delete(name);
      return;
    }
    const shared = this.imageSummaries.get(name);
    if (shared !== undefined) shared.numNodes = numNodes;
  }

  /** Rebuild the affinity lists from the node list. */
  rebuildAffinityLists(): void {
    this.havePodsWithAffinityNodeInfoList = this.nodeInfoList.filter((n) => n.podsWithAffinity.length > 0);
    this.havePodsWithRequiredAntiAffinityNodeInfoList = this.nodeInfoList.filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
  }
}
