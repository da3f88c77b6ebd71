/**
 * The scheduling queue (upstream's PriorityQueue): three places a pending pod can be.
 *
 * - activeQ: pods ready to be tried, ordered by the profile's QueueSort
 *   (PrioritySort: higher spec.priority first, then earlier timestamp). pop() takes the head.
 * - backoffQ: pods that failed recently and wait out their backoff
 *   (podInitialBackoffSeconds 1 s doubling per attempt up to podMaxBackoffSeconds 10 s),
 *   then move to activeQ by themselves.
 * - unschedulable pool: pods that no node fits. They leave only when a
 *   cluster event happens that one of the plugins that rejected them registered
 *   for (and whose QueueingHint says Queue): then to backoffQ if their backoff
 *   has not expired yet, else to activeQ. As upstream, a pod that stayed there
 *   longer than podMaxInUnschedulablePodsDuration (5 min) is flushed anyway.
 *
 * A pod being scheduled (popped, not yet done) is "in flight": events that
 * happen during its cycle are remembered, so that if the cycle fails, an event
 * that arrived meanwhile re-queues it at once instead of being lost.
 *
 * The queue also holds the nominator (pods nominated to nodes by preemption).
 */
import type { ClusterEvent } from '../framework/cluster-event.js';
import type { PodNominator, QueuedPodInfo } from '../framework/interfaces.js';
import type { Pod } from '../framework/types.js';
import type { Labels } from '../../machinery/selectors/label-selector.js';

export interface SchedulingQueueOptions {
  /** podInitialBackoffSeconds in ms (default 1000). */
  readonly podInitialBackoffMs?: number;
  /** podMaxBackoffSeconds in ms (default 10000). */
  readonly podMaxBackoffMs?: number;
  /** podMaxInUnschedulablePodsDuration in ms (default 300000). */
  readonly podMaxInUnschedulablePodsDurationMs?: number;
  /** The clock (tests pass their own). */
  readonly now?: () => number;
  /** How often pods whose backoff expired move from backoffQ to activeQ, in ms (default 1000, upstream's). */
  readonly backoffFlushIntervalMs?: number;
  /** How often the unschedulable pool is checked for pods past podMaxInUnschedulablePodsDuration, in ms (default 30000, upstream's). */
  readonly unschedulableFlushIntervalMs?: number;
  /** A namespace's labels (for affinity terms with a namespaceSelector when an assigned pod is added). */
  readonly namespaceLabels?: (namespace: string) => Labels | undefined;
  /** The pod as the informer knows it now: the nominator skips pods that are gone or bound (upstream's pod lister check). */
  readonly currentPod?: (namespace: string, name: string) => Pod | undefined;
}

export interface PendingPodCounts {
  readonly active: number;
  readonly backoff: number;
  readonly unschedulable: number;
  readonly gated: number;
}

export interface SchedulingQueue extends PodNominator {
  /** A new pending pod (informer add): PreEnqueue, then activeQ (or gated in the unschedulable pool). */
  add(pod: Pod): void;
  /** A pending pod changed (informer update): re-evaluated; an update that could make it schedulable moves it to activeQ/backoffQ. */
  update(oldPod: Pod, newPod: Pod): void;
  /** A pending pod was deleted or got bound by someone else. */
  delete(pod: Pod): void;
  /**
   * The next pod to schedule: waits until activeQ has one. Resolves undefined
   * once the queue is closed. The pod is in flight until done(uid).
   */
  pop(): Promise<QueuedPodInfo | undefined>;
  /** The cycle ended (bound, or failed and re-queued): forget in-flight bookkeeping. */
  done(uid: string): void;
  /**
   * After a failed cycle: put the pod back. Rejected by plugins (its
   * unschedulablePlugins set) → unschedulable pool, unless an event they
   * registered for arrived during its cycle, which sends it to backoffQ. An
   * Error (no plugins named) → backoffQ.
   */
  addUnschedulableIfNotPresent(podInfo: QueuedPodInfo, schedulingCycle: number): void;
  /** Increments with every pop. */
  schedulingCycle(): number;
  /** A cluster event: move the unschedulable pods that it may help (per the plugins' registrations and hints). */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent, oldObject: unknown, newObject: unknown): void;
  /** An assigned pod was added: as upstream, moves the pods with affinity terms that match it (cheap pre-check). */
  assignedPodAdded(pod: Pod): void;
  assignedPodUpdated(oldPod: Pod, newPod: Pod): void;
  pendingPods(): PendingPodCounts;
  /** Start the backoff and unschedulable flush timers. */
  run(): void;
  /** Stop timers; pop() resolves undefined. */
  close(): void;
}
