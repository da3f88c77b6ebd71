/**
 * The scheduling queue (upstream's backend/queue PriorityQueue): activeQ and
 * backoffQ are keyed heaps, the unschedulable pool a map; see interface.ts
 * for the life of a pod between them.
 *
 * Re-queueing follows upstream's QueueingHints: a pod in the pool carries the
 * plugins that rejected it (unschedulablePlugins, pendingPlugins). A cluster
 * event moves it when one of those plugins registered a matching event whose
 * hint (if any) says Queue (a throwing hint counts as Queue): Queue from a
 * Pending plugin goes straight to activeQ, from an Unschedulable one to
 * backoffQ while the pod's backoff runs. A pod with no rejecting plugins (an
 * Error) goes back on any event.
 *
 * In-flight events: while a pod is being scheduled (popped, not done) every
 * event is recorded with a sequence number; when the cycle fails,
 * addUnschedulableIfNotPresent replays the events that happened since the pod
 * was popped, so that a helpful event is not lost.
 */
import { ALL_ACTIONS, ActionType, QueueingHint, eventMatches, type ClusterEvent, type ClusterEventWithHint } from '../framework/cluster-event.js';
import type { Framework, QueuedPodInfo } from '../framework/interfaces.js';
import { PodInfo, affinityTermMatches, type Pod } from '../framework/types.js';
import type { Labels } from '../../machinery/selectors/label-selector.js';
import { KeyedHeap } from './heap.js';
import type { PendingPodCounts, SchedulingQueue, SchedulingQueueOptions } from './interface.js';
import { Nominator } from './nominator.js';
import { podUpdateEvents } from './pod-update-events.js';

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
export const DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION_MS = 300_000;
const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
const POD_TOPOLOGY_SPREAD = 'PodTopologySpread';

/** Upstream's special events. */
export const UNSCHEDULABLE_TIMEOUT: ClusterEvent = { resource: 'WildCard', actionType: ALL_ACTIONS, label: 'UnschedulableTimeout' };
export const ASSIGNED_POD_ADD: ClusterEvent = { resource: 'Pod', actionType: ActionType.Add, label: 'AssignedPodAdd' };

/** Where a failed or moved pod goes (upstream's queueingStrategy), in increasing urgency. */
export enum QueueingStrategy {
  Skip = 0,
  AfterBackoff = 1,
  Immediately = 2,
}

/** Where a pod ended up. */
export type QueueName = 'activeQ' | 'backoffQ' | 'unschedulablePods';

interface RecordedEvent {
  readonly seq: number;
  readonly event: ClusterEvent;
  readonly oldObject: unknown;
  readonly newObject: unknown;
}

/** PrioritySort's order, for a queue built without frameworks. */
function defaultLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
  const pa = a.podInfo.pod.spec?.priority ?? 0;
  const pb = b.podInfo.pod.spec?.priority ?? 0;
  return pa > pb || (pa === pb && a.timestamp < b.timestamp);
}

function uidOf(info: QueuedPodInfo): string {
  return info.podInfo.uid;
}

export class PriorityQueue implements SchedulingQueue {
  private readonly now: () => number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxInUnschedulableMs: number;
  private readonly activeQ: KeyedHeap<QueuedPodInfo>;
  private readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulablePods = new Map<string, QueuedPodInfo>();
  private readonly nominator: Nominator;
  /** uid → sequence number of the first event it has not seen. */
  private readonly inFlightPods = new Map<string, number>();
  /** Pods deleted while in flight: not re-queued when their cycle fails. */
  private readonly deletedInFlight = new Set<string>();
  private inFlightEvents: RecordedEvent[] = [];
  private nextSeq = 0;
  private cycle = 0;
  private readonly waiters: Array<(info: QueuedPodInfo | undefined) => void> = [];
  private wakeScheduled = false;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly registrations = new Map<string, ReadonlyMap<string, readonly ClusterEventWithHint[]>>();
  private sortLess: ((a: QueuedPodInfo, b: QueuedPodInfo) => boolean) | undefined;

  constructor(
    private readonly frameworks: ReadonlyMap<string, Framework>,
    private readonly options: SchedulingQueueOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.initialBackoffMs = options.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS;
    this.maxBackoffMs = options.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS;
    this.maxInUnschedulableMs = options.podMaxInUnschedulablePodsDurationMs ?? DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION_MS;
    const less = (a: QueuedPodInfo, b: QueuedPodInfo): boolean => this.queueSortLess(a, b);
    this.activeQ = new KeyedHeap(uidOf, less);
    this.backoffQ = new KeyedHeap(uidOf, (a, b) => {
      const ea = this.backoffExpiry(a);
      const eb = this.backoffExpiry(b);
      return ea < eb || (ea === eb && less(a, b));
    });
    this.nominator = new Nominator(options.currentPod === undefined ? {} : { currentPod: options.currentPod });
  }

  // ---- the nominator ----

  addNominatedPod(podInfo: PodInfo, nodeName?: string): void {
    this.nominator.addNominatedPod(podInfo, nodeName);
  }

  deleteNominatedPodIfExists(pod: Pod): void {
    this.nominator.deleteNominatedPodIfExists(pod);
  }

  updateNominatedPod(oldPod: Pod, newPodInfo: PodInfo): void {
    this.nominator.updateNominatedPod(oldPod, newPodInfo);
  }

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.nominator.nominatedPodsForNode(nodeName);
  }

  hasNominatedPods(): boolean {
    return this.nominator.hasNominatedPods();
  }

  // ---- informer events for pending pods ----

  add(pod: Pod): void {
    const info = this.newQueuedPodInfo(pod);
    this.moveToActiveQ(info, { nominate: true });
  }

  update(oldPod: Pod, newPod: Pod): void {
    const uid = newPod.metadata.uid ?? '';
    const events = podUpdateEvents(oldPod, newPod, 'UnscheduledPod');
    if (this.inFlightPods.has(uid)) {
      // Its cycle will decide; the update counts if the cycle fails.
      for (const event of events) this.recordEvent(event, oldPod, newPod);
      return;
    }
    const queued = this.activeQ.get(uid) ?? this.backoffQ.get(uid);
    if (queued !== undefined) {
      queued.podInfo = new PodInfo(newPod);
      if (this.activeQ.has(uid)) this.activeQ.addOrUpdate(queued);
      else this.backoffQ.addOrUpdate(queued);
      this.nominator.updateNominatedPod(oldPod, queued.podInfo);
      return;
    }
    const pooled = this.unschedulablePods.get(uid);
    if (pooled !== undefined) {
      pooled.podInfo = new PodInfo(newPod);
      this.nominator.updateNominatedPod(oldPod, pooled.podInfo);
      let strategy = QueueingStrategy.Skip;
      for (const event of events) strategy = Math.max(strategy, this.isPodWorthRequeuing(pooled, event, oldPod, newPod));
      if (strategy !== QueueingStrategy.Skip) {
        this.unschedulablePods.delete(uid);
        this.requeue(pooled, strategy);
      }
      return;
    }
    // Not queued anywhere (e.g. its earlier add was missed): as a new pod.
    this.moveToActiveQ(this.newQueuedPodInfo(newPod), { nominate: true });
  }

  delete(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    this.nominator.deleteNominatedPodIfExists(pod);
    this.activeQ.delete(uid);
    this.backoffQ.delete(uid);
    this.unschedulablePods.delete(uid);
    if (this.inFlightPods.has(uid)) this.deletedInFlight.add(uid);
  }

  // ---- the scheduling loop ----

  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    if (this.waiters.length === 0 && this.activeQ.size > 0) return Promise.resolve(this.takeHead());
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.scheduleWake();
    });
  }

  done(uid: string): void {
    if (!this.inFlightPods.delete(uid)) return;
    this.deletedInFlight.delete(uid);
    if (this.inFlightPods.size === 0) {
      this.inFlightEvents = [];
      return;
    }
    let oldest = Number.POSITIVE_INFINITY;
    for (const seq of this.inFlightPods.values()) oldest = Math.min(oldest, seq);
    let drop = 0;
    while (drop < this.inFlightEvents.length && this.inFlightEvents[drop]!.seq < oldest) drop++;
    if (drop > 0) this.inFlightEvents.splice(0, drop);
  }

  /**
   * After a failed cycle. `schedulingCycle` is accepted for the interface;
   * the in-flight events (not cycle numbers) decide, as in upstream with
   * QueueingHints. A pod already queued again, or deleted meanwhile, is left alone.
   */
  addUnschedulableIfNotPresent(podInfo: QueuedPodInfo, schedulingCycle: number): void {
    void schedulingCycle;
    const uid = uidOf(podInfo);
    if (this.activeQ.has(uid) || this.backoffQ.has(uid) || this.unschedulablePods.has(uid)) return;
    if (this.deletedInFlight.has(uid)) return;
    podInfo.timestamp = this.now();
    this.requeue(podInfo, this.strategyForInFlightPod(podInfo));
    this.nominator.addNominatedPod(podInfo.podInfo);
  }

  schedulingCycle(): number {
    return this.cycle;
  }

  // ---- cluster events ----

  moveAllToActiveOrBackoffQueue(event: ClusterEvent, oldObject: unknown, newObject: unknown): void {
    this.movePods([...this.unschedulablePods.values()], event, oldObject, newObject);
  }

  assignedPodAdded(pod: Pod): void {
    this.movePods(this.podsWithCrossTopologyTerm(pod), ASSIGNED_POD_ADD, undefined, pod);
  }

  assignedPodUpdated(oldPod: Pod, newPod: Pod): void {
    for (const event of podUpdateEvents(oldPod, newPod, 'Pod')) {
      // A scale-down may make room for anything (NodeResourcesFit); other
      // changes of an assigned pod only matter to pods whose terms select it.
      if ((event.actionType & ActionType.UpdatePodScaleDown) !== 0) this.moveAllToActiveOrBackoffQueue(event, oldPod, newPod);
      else this.movePods(this.podsWithCrossTopologyTerm(newPod), event, oldPod, newPod);
    }
  }

  pendingPods(): PendingPodCounts {
    let gated = 0;
    for (const info of this.unschedulablePods.values()) if (info.gated) gated++;
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulablePods.size - gated, gated };
  }

  run(): void {
    if (this.closed || this.timers.length > 0) return;
    const backoff = setInterval(() => this.flushBackoffQCompleted(), this.options.backoffFlushIntervalMs ?? 1000);
    const leftover = setInterval(() => this.flushUnschedulablePodsLeftover(), this.options.unschedulableFlushIntervalMs ?? 30_000);
    backoff.unref();
    leftover.unref();
    this.timers.push(backoff, leftover);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  /** Move the pods whose backoff has expired to activeQ (run every second by run()). */
  flushBackoffQCompleted(): void {
    const now = this.now();
    for (let head = this.backoffQ.peek(); head !== undefined && this.backoffExpiry(head) <= now; head = this.backoffQ.peek()) {
      this.backoffQ.pop();
      this.moveToActiveQ(head, { nominate: false });
    }
  }

  /** Move the pods that stayed in the pool longer than podMaxInUnschedulablePodsDuration (run every 30 s by run()). */
  flushUnschedulablePodsLeftover(): void {
    const now = this.now();
    const stale = [...this.unschedulablePods.values()].filter((info) => now - info.timestamp > this.maxInUnschedulableMs);
    if (stale.length > 0) this.movePods(stale, UNSCHEDULABLE_TIMEOUT, undefined, undefined);
  }

  /** Where each pod is (tests and debugging). */
  queueOf(uid: string): QueueName | 'inFlight' | undefined {
    if (this.activeQ.has(uid)) return 'activeQ';
    if (this.backoffQ.has(uid)) return 'backoffQ';
    if (this.unschedulablePods.has(uid)) return 'unschedulablePods';
    if (this.inFlightPods.has(uid)) return 'inFlight';
    return undefined;
  }

  /** Upstream's calculateBackoffDuration: initial × 2^(attempts−1), capped at the maximum. */
  backoffDuration(info: QueuedPodInfo): number {
    if (info.attempts <= 0) return 0;
    let duration = this.initialBackoffMs;
    for (let i = 1; i < info.attempts; i++) {
      if (duration > this.maxBackoffMs - duration) return this.maxBackoffMs;
      duration += duration;
    }
    return Math.min(duration, this.maxBackoffMs);
  }

  // ---- internals ----

  /**
   * Upstream requires every profile to share one QueueSort: the first
   * profile's orders activeQ. Looked up on first use, so that the runtime may
   * fill the frameworks map after building the queue (its plugins' Handle
   * needs the queue as nominator).
   */
  private queueSortLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    if (this.sortLess === undefined) {
      const first = this.frameworks.values().next().value;
      if (first === undefined) return defaultLess(a, b);
      this.sortLess = (x, y) => first.queueSortLess(x, y);
    }
    return this.sortLess(a, b);
  }

  private backoffExpiry(info: QueuedPodInfo): number {
    return info.timestamp + this.backoffDuration(info);
  }

  private isPodBackingOff(info: QueuedPodInfo): boolean {
    if (info.gated) return false;
    return this.backoffExpiry(info) > this.now();
  }

  private newQueuedPodInfo(pod: Pod): QueuedPodInfo {
    const now = this.now();
    return {
      podInfo: new PodInfo(pod),
      timestamp: now,
      attempts: 0,
      initialAttemptTimestamp: now,
      unschedulablePlugins: new Set(),
      pendingPlugins: new Set(),
      gated: false,
    };
  }

  private frameworkFor(pod: Pod): Framework | undefined {
    return this.frameworks.get(pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME);
  }

  private registrationsFor(pod: Pod): ReadonlyMap<string, readonly ClusterEventWithHint[]> | undefined {
    const name = pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME;
    let map = this.registrations.get(name);
    if (map === undefined) {
      const framework = this.frameworks.get(name);
      if (framework === undefined) return undefined;
      map = framework.eventsToRegister();
      this.registrations.set(name, map);
    }
    return map;
  }

  /** PreEnqueue: sets `gated` (and names the gating plugin among the rejectors, so its events lift the gate). */
  private runPreEnqueue(info: QueuedPodInfo): void {
    const framework = this.frameworkFor(info.podInfo.pod);
    const status = framework?.runPreEnqueuePlugins(info.podInfo.pod);
    if (status === undefined || status.isSuccess()) {
      info.gated = false;
      return;
    }
    info.gated = true;
    info.unschedulablePlugins.add(status.plugin);
  }

  /** To activeQ unless PreEnqueue gates it (then to the pool); true if it went to activeQ. */
  private moveToActiveQ(info: QueuedPodInfo, opts: { nominate: boolean }): boolean {
    const uid = uidOf(info);
    const wasGated = info.gated;
    this.runPreEnqueue(info);
    if (info.gated) {
      if (this.activeQ.has(uid) || this.backoffQ.has(uid)) return false;
      this.unschedulablePods.set(uid, info);
      return false;
    }
    if (wasGated && info.attempts === 0) info.initialAttemptTimestamp = this.now();
    this.unschedulablePods.delete(uid);
    this.backoffQ.delete(uid);
    this.activeQ.addOrUpdate(info);
    if (opts.nominate) this.nominator.addNominatedPod(info.podInfo);
    this.scheduleWake();
    return true;
  }

  private requeue(info: QueuedPodInfo, strategy: QueueingStrategy): QueueName {
    const uid = uidOf(info);
    if (strategy === QueueingStrategy.Skip) {
      this.unschedulablePods.set(uid, info);
      return 'unschedulablePods';
    }
    if (strategy === QueueingStrategy.AfterBackoff && this.isPodBackingOff(info)) {
      this.unschedulablePods.delete(uid);
      this.backoffQ.addOrUpdate(info);
      return 'backoffQ';
    }
    return this.moveToActiveQ(info, { nominate: false }) ? 'activeQ' : 'unschedulablePods';
  }

  private movePods(infos: readonly QueuedPodInfo[], event: ClusterEvent, oldObject: unknown, newObject: unknown): void {
    this.recordEvent(event, oldObject, newObject);
    for (const info of infos) {
      const strategy = this.isPodWorthRequeuing(info, event, oldObject, newObject);
      if (strategy === QueueingStrategy.Skip) continue;
      this.unschedulablePods.delete(uidOf(info));
      this.requeue(info, strategy);
    }
  }

  /** Upstream's isPodWorthRequeuing. */
  private isPodWorthRequeuing(info: QueuedPodInfo, event: ClusterEvent, oldObject: unknown, newObject: unknown): QueueingStrategy {
    if (info.unschedulablePlugins.size === 0 && info.pendingPlugins.size === 0) return QueueingStrategy.AfterBackoff;
    if (event.resource === 'WildCard') return QueueingStrategy.AfterBackoff;
    const pod = info.podInfo.pod;
    const registrations = this.registrationsFor(pod);
    if (registrations === undefined) return QueueingStrategy.AfterBackoff;
    let strategy = QueueingStrategy.Skip;
    for (const plugin of [...info.unschedulablePlugins, ...info.pendingPlugins]) {
      for (const registered of registrations.get(plugin) ?? []) {
        if (!eventMatches(registered.event, event)) continue;
        if (registered.hint !== undefined && runHint(registered, pod, oldObject, newObject) === QueueingHint.Skip) continue;
        if (info.pendingPlugins.has(plugin)) return QueueingStrategy.Immediately;
        strategy = QueueingStrategy.AfterBackoff;
      }
    }
    return strategy;
  }

  private strategyForInFlightPod(info: QueuedPodInfo): QueueingStrategy {
    if (info.unschedulablePlugins.size === 0 && info.pendingPlugins.size === 0) return QueueingStrategy.AfterBackoff;
    const since = this.inFlightPods.get(uidOf(info));
    if (since === undefined) return QueueingStrategy.Skip;
    let strategy = QueueingStrategy.Skip;
    for (const recorded of this.inFlightEvents) {
      if (recorded.seq < since) continue;
      const s = this.isPodWorthRequeuing(info, recorded.event, recorded.oldObject, recorded.newObject);
      if (s === QueueingStrategy.Immediately) return s;
      strategy = Math.max(strategy, s);
    }
    return strategy;
  }

  private recordEvent(event: ClusterEvent, oldObject: unknown, newObject: unknown): void {
    if (this.inFlightPods.size === 0) return;
    this.inFlightEvents.push({ seq: this.nextSeq++, event, oldObject, newObject });
  }

  /**
   * Unschedulable pods that an assigned pod may help (upstream's
   * getUnschedulablePodsWithCrossTopologyTerm): those rejected by
   * PodTopologySpread in the same namespace, and those with a required
   * affinity term that selects the pod.
   */
  private podsWithCrossTopologyTerm(pod: Pod): QueuedPodInfo[] {
    const namespace = pod.metadata.namespace ?? '';
    let nsLabels: Labels | undefined;
    let nsLabelsLoaded = false;
    const labels = (): Labels | undefined => {
      if (!nsLabelsLoaded) {
        nsLabels = this.options.namespaceLabels?.(namespace);
        nsLabelsLoaded = true;
      }
      return nsLabels;
    };
    const result: QueuedPodInfo[] = [];
    for (const info of this.unschedulablePods.values()) {
      if (info.unschedulablePlugins.has(POD_TOPOLOGY_SPREAD) && (info.podInfo.pod.metadata.namespace ?? '') === namespace) {
        result.push(info);
        continue;
      }
      if (info.podInfo.requiredAffinityTerms.some((term) => affinityTermMatches(term, pod, labels()))) result.push(info);
    }
    return result;
  }

  private takeHead(): QueuedPodInfo | undefined {
    const info = this.activeQ.pop();
    if (info === undefined) return undefined;
    info.attempts++;
    this.cycle++;
    // The next attempt reports its own rejectors.
    info.unschedulablePlugins.clear();
    info.pendingPlugins.clear();
    this.inFlightPods.set(uidOf(info), this.nextSeq);
    return info;
  }

  /** Hand the best pods to waiting pop() calls, after the current synchronous batch of adds. */
  private scheduleWake(): void {
    if (this.wakeScheduled || this.waiters.length === 0) return;
    this.wakeScheduled = true;
    queueMicrotask(() => {
      this.wakeScheduled = false;
      while (this.waiters.length > 0 && this.activeQ.size > 0 && !this.closed) this.waiters.shift()!(this.takeHead());
    });
  }
}

function runHint(registered: ClusterEventWithHint, pod: Pod, oldObject: unknown, newObject: unknown): QueueingHint {
  try {
    return registered.hint!(pod, oldObject, newObject);
  } catch {
    return QueueingHint.Queue;
  }
}

/**
 * The scheduling queue of the profiles' frameworks (keyed by schedulerName).
 * The map is read lazily: a runtime that needs the queue (as the plugins'
 * nominator) before its frameworks exist may pass a Map and fill it before
 * the first pod is added.
 */
export function newPriorityQueue(frameworks: ReadonlyMap<string, Framework>, options: SchedulingQueueOptions = {}): PriorityQueue {
  return new PriorityQueue(frameworks, options);
}
