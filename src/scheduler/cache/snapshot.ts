/**
 * One scheduling cycle's view of the cluster (upstream's backend/cache
 * Snapshot): clones of the cache's NodeInfos, so that nothing the cache
 * learns during a cycle changes what the cycle sees. The cache refreshes it
 * in place (SchedulerCache.updateSnapshot), copying only what changed, and
 * remembers which NodeInfos the last updates changed (changedSince), so that
 * plugins keeping counts across cycles re-count only those.
 */

/** Updates remembered for changedSince; older ones make a consumer walk every node. */
const MAX_LOGGED_UPDATES = 256;
/** NodeInfos remembered over those updates. */
const MAX_LOGGED_NODES = 8192;

interface LoggedUpdate {
  /** The snapshot generation before the update. */
  readonly after: number;
  readonly changed: readonly NodeInfo[];
}

import type { NodeInfoChanges, NodeInfoLister } from '../framework/interfaces.js';
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
  /** Consecutive updates since `logFloor`: changedSince(g) can answer for any g ≥ logFloor. */
  private changeLog: LoggedUpdate[] = [];
  private loggedNodes = 0;
  private logFloor = Number.POSITIVE_INFINITY;

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

  changedSince(since: number): NodeInfoChanges {
    const generation = this.generation;
    if (since === generation) return { generation, changed: [] };
    if (!(since >= this.logFloor) || since > generation) return { generation, changed: undefined };
    const log = this.changeLog;
    let i = log.length;
    while (i > 0 && log[i - 1]!.after >= since) i--;
    if (i === log.length - 1) return { generation, changed: log[i]!.changed };
    const changed = new Set<NodeInfo>();
    for (; i < log.length; i++) for (const info of log[i]!.changed) changed.add(info);
    return { generation, changed: [...changed] };
  }

  /**
   * The cache's update brought the snapshot from `after` to the next
   * generation, changing `changed` (existing NodeInfos, in place); with
   * `nodeSetChanged` nodes came or went, and earlier generations can no
   * longer be answered.
   */
  recordUpdate(after: number, changed: readonly NodeInfo[], nodeSetChanged: boolean): void {
    if (nodeSetChanged) {
      this.changeLog = [];
      this.loggedNodes = 0;
      this.logFloor = Number.POSITIVE_INFINITY;
      return;
    }
    if (this.logFloor === Number.POSITIVE_INFINITY) this.logFloor = after;
    this.changeLog.push({ after, changed });
    this.loggedNodes += changed.length;
    while (this.changeLog.length > MAX_LOGGED_UPDATES || (this.loggedNodes > MAX_LOGGED_NODES && this.changeLog.length > 1)) {
      this.loggedNodes -= this.changeLog.shift()!.changed.length;
      this.logFloor = this.changeLog[0]!.after;
    }
  }

  /** After a full update, changes start being answered from this generation on. */
  startLogAt(generation: number): void {
    if (this.logFloor === Number.POSITIVE_INFINITY) this.logFloor = generation;
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

  /**
   * A NodeInfo of the lists started or stopped holding pods with affinity
   * (`hadAffinity`, `hadRequiredAntiAffinity`: before the change): add it to
   * or take it from the lists, instead of filtering every node again. The
   * lists are replaced, not changed, so that a list handed out earlier stays
   * as it was; a node added here goes to the end (the order of the lists
   * does not matter to their readers, which sum over them).
   */
  patchAffinityLists(info: NodeInfo, hadAffinity: boolean, hadRequiredAntiAffinity: boolean): void {
    const hasAffinity = info.podsWithAffinity.length > 0;
    if (hasAffinity !== hadAffinity) this.havePodsWithAffinityNodeInfoList = patched(this.havePodsWithAffinityNodeInfoList, info, hasAffinity);
    const hasAnti = info.podsWithRequiredAntiAffinity.length > 0;
    if (hasAnti !== hadRequiredAntiAffinity) this.havePodsWithRequiredAntiAffinityNodeInfoList = patched(this.havePodsWithRequiredAntiAffinityNodeInfoList, info, hasAnti);
  }
}

function patched(list: readonly NodeInfo[], info: NodeInfo, add: boolean): NodeInfo[] {
  if (add) return list.includes(info) ? [...list] : [...list, info];
  return list.filter((n) => n !== info);
}
