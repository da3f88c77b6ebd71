/**
 * A recording SchedulingQueue and SchedulerCache for the cycle's unit tests
 * (never used outside tests): the queue hands out the pods pushed to it and
 * logs every call; the cache keeps assumed pods in a set and refreshes
 * nothing (the test owns the snapshot).
 */
import type { SchedulerCache, Snapshot } from '../cache/interface.js';
import type { ClusterEvent } from '../framework/cluster-event.js';
import type { QueuedPodInfo } from '../framework/interfaces.js';
import type { NodeInfo } from '../framework/node-info.js';
import { PodInfo, type Node, type Pod } from '../framework/types.js';
import type { PendingPodCounts, SchedulingQueue } from '../queue/interface.js';
import { FakeNominator, FakeSnapshot } from './fakes.js';

export function queuedPodInfo(pod: Pod, attempts = 1): QueuedPodInfo {
  return { podInfo: new PodInfo(pod), timestamp: Date.now(), attempts, initialAttemptTimestamp: Date.now(), unschedulablePlugins: new Set(), pendingPlugins: new Set(), gated: false };
}

export class FakeQueue extends FakeNominator implements SchedulingQueue {
  readonly calls: string[] = [];
  readonly requeued: QueuedPodInfo[] = [];
  readonly moves: ClusterEvent[] = [];
  readonly doneUids: string[] = [];
  private readonly items: QueuedPodInfo[] = [];
  private waiter: ((qpi: QueuedPodInfo | undefined) => void) | undefined;
  private closed = false;
  private cycle = 0;

  push(qpi: QueuedPodInfo): void {
    if (this.waiter !== undefined) {
      const w = this.waiter;
      this.waiter = undefined;
      this.cycle++;
      w(qpi);
    } else {
      this.items.push(qpi);
    }
  }

  add(pod: Pod): void {
    this.calls.push(`add ${pod.metadata.name}`);
    this.push(queuedPodInfo(pod));
  }
  update(_oldPod: Pod, newPod: Pod): void {
    this.calls.push(`update ${newPod.metadata.name}`);
  }
  delete(pod: Pod): void {
    this.calls.push(`delete ${pod.metadata.name}`);
  }
  pop(): Promise<QueuedPodInfo | undefined> {
    const next = this.items.shift();
    if (next !== undefined) {
      this.cycle++;
      return Promise.resolve(next);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiter = resolve));
  }
  done(uid: string): void {
    this.doneUids.push(uid);
  }
  addUnschedulableIfNotPresent(podInfo: QueuedPodInfo): void {
    this.requeued.push(podInfo);
  }
  schedulingCycle(): number {
    return this.cycle;
  }
  moveAllToActiveOrBackoffQueue(event: ClusterEvent): void {
    this.moves.push(event);
  }
  assignedPodAdded(pod: Pod): void {
    this.calls.push(`assignedPodAdded ${pod.metadata.name}`);
  }
  assignedPodUpdated(_oldPod: Pod, newPod: Pod): void {
    this.calls.push(`assignedPodUpdated ${newPod.metadata.name}`);
  }
  pendingPods(): PendingPodCounts {
    return { active: this.items.length, backoff: 0, unschedulable: this.requeued.length, gated: 0 };
  }
  run(): void {}
  close(): void {
    this.closed = true;
    this.waiter?.(undefined);
    this.waiter = undefined;
  }
}

export class FakeCache implements SchedulerCache {
  readonly assumed = new Map<string, Pod>();
  readonly calls: string[] = [];
  readonly nodes = new Map<string, Node>();
  readonly pods = new Map<string, Pod>();

  constructor(readonly snapshot: FakeSnapshot = new FakeSnapshot()) {}

  assumePod(pod: Pod): void {
    this.calls.push(`assume ${pod.metadata.name} ${pod.spec?.nodeName ?? ''}`);
    this.assumed.set(pod.metadata.uid ?? '', pod);
  }
  finishBinding(pod: Pod): void {
    this.calls.push(`finishBinding ${pod.metadata.name}`);
  }
  forgetPod(pod: Pod): void {
    this.calls.push(`forget ${pod.metadata.name}`);
    this.assumed.delete(pod.metadata.uid ?? '');
  }
  isAssumedPod(pod: Pod): boolean {
    return this.assumed.has(pod.metadata.uid ?? '');
  }
  addPod(pod: Pod): void {
    this.calls.push(`addPod ${pod.metadata.name}`);
    this.pods.set(pod.metadata.uid ?? '', pod);
  }
  updatePod(_oldPod: Pod, newPod: Pod): void {
    this.calls.push(`updatePod ${newPod.metadata.name}`);
  }
  removePod(pod: Pod): void {
    this.calls.push(`removePod ${pod.metadata.name}`);
    this.pods.delete(pod.metadata.uid ?? '');
  }
  addNode(node: Node): void {
    this.calls.push(`addNode ${node.metadata.name}`);
    this.nodes.set(node.metadata.name ?? '', node);
  }
  updateNode(_oldNode: Node, newNode: Node): void {
    this.calls.push(`updateNode ${newNode.metadata.name}`);
  }
  removeNode(node: Node): void {
    this.calls.push(`removeNode ${node.metadata.name}`);
  }
  updateSnapshot(): void {}
  newSnapshot(): Snapshot {
    return this.snapshot;
  }
  nodeCount(): number {
    return this.snapshot.numNodes;
  }
  podCount(): number {
    return this.pods.size;
  }
  getNodeInfo(nodeName: string): NodeInfo | undefined {
    return this.snapshot.get(nodeName);
  }
}
