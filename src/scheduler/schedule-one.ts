/**
 * One pod's way through the scheduler (upstream's schedule_one.go).
 *
 * Scheduling cycle, one pod at a time: skip a pod being deleted or already
 * assumed → its profile's framework → refresh the snapshot → PreFilter →
 * the nominated node first (if status.nominatedNodeName) → Filter over the
 * nodes in chunks, yielding to the event loop between chunks, starting where
 * the previous cycle stopped and stopping once enough feasible nodes are
 * found → PreScore/Score (skipped for a single feasible node) → pick the best
 * (ties broken by reservoir sampling) → assume the pod in the cache → Reserve
 * → Permit.
 *
 * Binding cycle, started without awaiting it so that the next pod is
 * scheduled at once: WaitOnPermit → PreBind → Bind → cache.finishBinding and
 * a Scheduled event. On failure: Unreserve, forget the assumed pod, and the
 * failure handler.
 *
 * Failure handler: the pod goes back to the queue (unschedulable pool, with
 * the plugins that rejected it, or backoff for errors), its nomination is
 * updated, a FailedScheduling event is recorded, and the PodScheduled
 * condition is written through pods/status with a strategic merge patch
 * (which changes only that condition and status.nominatedNodeName).
 */
import { performance } from 'node:perf_hooks';
import type { EventRecorder } from '../client/record/interface.js';
import type { Client } from '../client/rest/interface.js';
import { PODS } from '../client/rest/resources.js';
import type { Logger } from '../machinery/logger.js';
import { formatTime } from '../machinery/meta.js';
import { isNotFound } from '../machinery/status.js';
import type { SchedulerCache, Snapshot } from './cache/interface.js';
import { ActionType } from './framework/cluster-event.js';
import { CycleState } from './framework/cycle-state.js';
import { addPluginStatus, FitError, newDiagnosis, type Diagnosis } from './framework/fit-error.js';
import type { Framework, NodePluginScores, NominatingInfo, QueuedPodInfo } from './framework/interfaces.js';
import type { NodeInfo } from './framework/node-info.js';
import { NodeToStatus } from './framework/node-to-status.js';
import { Code, errorStatus, isSuccess, Status, type PluginStatus } from './framework/status.js';
import { PodInfo, podKey, type Pod } from './framework/types.js';
import { NO_METRICS, type SchedulerMetrics } from './metrics.js';
import type { SchedulingQueue } from './queue/interface.js';

export const MIN_FEASIBLE_NODES_TO_FIND = 100;
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
/** Nodes filtered between two yields to the event loop. */
export const DEFAULT_FILTER_CHUNK_SIZE = 256;
/** Upstream truncates event messages to the Event note limit. */
const NOTE_LENGTH_LIMIT = 1024;

export const CLEAR_NOMINATED_NODE: NominatingInfo = { nominatedNodeName: '', mode: 'Override' };

export class NoNodesAvailableError extends Error {
  constructor() {
    super('no nodes available to schedule pods');
    this.name = 'NoNodesAvailableError';
  }
}

/**
 * How many feasible nodes to look for among numAllNodes (upstream's
 * numFeasibleNodesToFind): all of them below 100 nodes; else `percentage`
 * of them, where 0 means adaptive (50% − nodes/125, at least 5%), and never
 * fewer than 100.
 */
export function numFeasibleNodesToFind(percentage: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let p = percentage;
  if (p === 0) {
    p = 50 - Math.trunc(numAllNodes / 125);
    if (p < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) p = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * p) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

/** The node with the highest total score; among equals, each is picked with equal probability (reservoir sampling). */
export function selectHost(scores: readonly NodePluginScores[], random: () => number = Math.random): string {
  if (scores.length === 0) throw new Error('empty priorityList');
  let best = scores[0]!;
  let ties = 1;
  for (let i = 1; i < scores.length; i++) {
    const s = scores[i]!;
    if (s.totalScore > best.totalScore) {
      best = s;
      ties = 1;
    } else if (s.totalScore === best.totalScore) {
      ties++;
      if (Math.floor(random() * ties) === 0) best = s;
    }
  }
  return best.name;
}

export interface ScheduleOneOptions {
  readonly queue: SchedulingQueue;
  readonly cache: SchedulerCache;
  /** The cycle's snapshot, refreshed from the cache at the start of each cycle. */
  readonly snapshot: Snapshot;
  /** By schedulerName. */
  readonly frameworks: ReadonlyMap<string, Framework>;
  readonly client: Client;
  /** The recorder of a profile (Events come from its schedulerName). */
  readonly recorderFor: (schedulerName: string) => EventRecorder;
  /** The live pod from the informer's cache (the failure handler re-queues what the informer has). */
  readonly getPod?: (namespace: string, name: string) => Pod | undefined;
  readonly logger: Logger;
  readonly metrics?: SchedulerMetrics;
  /** The scheduler-wide percentageOfNodesToScore (0: adaptive). */
  readonly percentageOfNodesToScore: number;
  readonly filterChunkSize?: number;
  /** For selectHost's tie-breaking (tests pass their own). */
  readonly random?: () => number;
  /** How often a pods/status write is tried before giving up (default 5). */
  readonly statusWriteAttempts?: number;
}

interface ScheduleResult {
  readonly suggestedHost: string;
  readonly evaluatedNodes: number;
  readonly feasibleNodes: number;
}

type CycleOutcome =
  | { readonly ok: true; readonly result: ScheduleResult; readonly assumed: QueuedPodInfo }
  | { readonly ok: false; readonly status: Status; readonly nominatingInfo: NominatingInfo | undefined; readonly podInfo: QueuedPodInfo };

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function asError(status: Status): Error {
  return status.error ?? new Error(status.message());
}

function statusLabel(status: PluginStatus): string {
  return status === undefined ? 'Success' : status.codeName();
}

/** Runs scheduling cycles, one pod at a time, and their binding cycles in the background. */
export class ScheduleOne {
  /** Where the next cycle's filtering starts (upstream's nextStartNodeIndex). */
  nextStartNodeIndex = 0;
  private readonly background = new Set<Promise<void>>();
  private readonly metrics: SchedulerMetrics;
  private readonly chunkSize: number;
  private readonly random: () => number;

  constructor(private readonly o: ScheduleOneOptions) {
    this.metrics = o.metrics ?? NO_METRICS;
    this.chunkSize = Math.max(1, o.filterChunkSize ?? DEFAULT_FILTER_CHUNK_SIZE);
    this.random = o.random ?? Math.random;
  }

  /** Binding cycles still running. */
  get inFlightBindings(): number {
    return this.background.size;
  }

  /** Resolves once every binding cycle started so far has ended. */
  async drain(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /** The scheduling cycle of one popped pod; resolves when the cycle is over (its binding cycle may still run). */
  async scheduleOne(qpi: QueuedPodInfo): Promise<void> {
    const pod = qpi.podInfo.pod;
    const uid = pod.metadata.uid ?? '';
    const fwk = this.o.frameworks.get(pod.spec?.schedulerName ?? 'default-scheduler');
    if (fwk === undefined) {
      this.o.logger.error({ pod: podKey(pod), schedulerName: pod.spec?.schedulerName }, 'No profile for the pod\'s schedulerName');
      this.o.queue.done(uid);
      return;
    }
    if (pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) {
      this.o.recorderFor(fwk.profileName).event(pod, 'Warning', 'FailedScheduling', `skip schedule deleting pod: ${podKey(pod)}`);
      this.o.queue.done(uid);
      return;
    }
    if (this.o.cache.isAssumedPod(pod)) {
      this.o.queue.done(uid);
      return;
    }
    const start = performance.now();
    const state = new CycleState();
    const outcome = await this.schedulingCycle(state, fwk, qpi);
    if (!outcome.ok) {
      await this.handleFailure(fwk, outcome.podInfo, outcome.status, outcome.nominatingInfo, start);
      return;
    }
    const binding = this.bindingCycle(state, fwk, outcome.result, outcome.assumed, qpi, start).catch((e: unknown) => {
      this.o.logger.error({ err: e, pod: podKey(pod) }, 'Binding cycle failed unexpectedly');
    });
    this.track(binding);
  }

  private track(p: Promise<void>): void {
    const tracked = p.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  private async schedulingCycle(state: CycleState, fwk: Framework, qpi: QueuedPodInfo): Promise<CycleOutcome> {
    const pod = qpi.podInfo.pod;
    let result: ScheduleResult;
    try {
      result = await this.schedulePod(fwk, state, pod);
    } catch (e: unknown) {
      if (e instanceof NoNodesAvailableError) return { ok: false, status: new Status(Code.UnschedulableAndUnresolvable, [], e), nominatingInfo: CLEAR_NOMINATED_NODE, podInfo: qpi };
      if (!(e instanceof FitError)) return { ok: false, status: errorStatus(e), nominatingInfo: CLEAR_NOMINATED_NODE, podInfo: qpi };
      if (!fwk.hasPostFilterPlugins()) return { ok: false, status: new Status(Code.Unschedulable, [], e), nominatingInfo: undefined, podInfo: qpi };
      this.metrics.preemptionAttempt();
      const t = performance.now();
      const post = await fwk.runPostFilterPlugins(state, pod, e.diagnosis.nodeToStatus);
      this.metrics.extensionPoint('PostFilter', statusLabel(post.status), fwk.profileName, (performance.now() - t) / 1000);
      // The framework contract: PostFilter plugins return the reason, the scheduler puts it after "preemption: " (upstream's DefaultPreemption adds it itself).
      const postFilterMessage = post.status === undefined ? '' : post.status.message();
      e.diagnosis.postFilterMsg = postFilterMessage === '' ? '' : `preemption: ${postFilterMessage}`;
      if (post.status?.code === Code.Error) this.o.logger.error({ pod: podKey(pod), status: e.diagnosis.postFilterMsg }, 'Status after running PostFilter plugins for pod');
      return { ok: false, status: new Status(Code.Unschedulable, [], e), nominatingInfo: post.result?.nominatingInfo, podInfo: qpi };
    }
    const host = result.suggestedHost;
    const assumedPod: Pod = { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: host } };
    const assumed: QueuedPodInfo = { ...qpi, podInfo: new PodInfo(assumedPod) };
    try {
      this.o.cache.assumePod(assumedPod);
      this.o.queue.deleteNominatedPodIfExists(assumedPod);
    } catch (e: unknown) {
      return { ok: false, status: errorStatus(e), nominatingInfo: CLEAR_NOMINATED_NODE, podInfo: assumed };
    }
    let t = performance.now();
    const reserve = fwk.runReservePluginsReserve(state, assumedPod, host);
    this.metrics.extensionPoint('Reserve', statusLabel(reserve), fwk.profileName, (performance.now() - t) / 1000);
    if (!isSuccess(reserve)) {
      fwk.runReservePluginsUnreserve(state, assumedPod, host);
      this.forget(assumedPod);
      return { ok: false, status: this.singleNodeFailure(pod, host, reserve!), nominatingInfo: CLEAR_NOMINATED_NODE, podInfo: assumed };
    }
    t = performance.now();
    const permit = fwk.runPermitPlugins(state, assumedPod, host);
    this.metrics.extensionPoint('Permit', statusLabel(permit), fwk.profileName, (performance.now() - t) / 1000);
    if (!isSuccess(permit) && permit!.code !== Code.Wait) {
      fwk.runReservePluginsUnreserve(state, assumedPod, host);
      this.forget(assumedPod);
      return { ok: false, status: this.singleNodeFailure(pod, host, permit!), nominatingInfo: CLEAR_NOMINATED_NODE, podInfo: assumed };
    }
    return { ok: true, result, assumed };
  }

  /** A rejection on the chosen node (Reserve, Permit, PreBind) as a FitError over one node; errors stay errors. */
  private singleNodeFailure(pod: Pod, host: string, status: Status): Status {
    if (!status.isRejected()) return status;
    const diagnosis = newDiagnosis(new NodeToStatus());
    diagnosis.nodeToStatus.set(host, status);
    addPluginStatus(diagnosis, status);
    if (status.plugin !== '' && diagnosis.unschedulablePlugins.size === 0 && diagnosis.pendingPlugins.size === 0) diagnosis.unschedulablePlugins.add(status.plugin);
    return new Status(status.code, [], new FitError(podKey(pod), 1, diagnosis));
  }

  private forget(assumedPod: Pod): boolean {
    try {
      this.o.cache.forgetPod(assumedPod);
      return true;
    } catch (e: unknown) {
      this.o.logger.error({ err: e, pod: podKey(assumedPod) }, 'Scheduler cache ForgetPod failed');
      return false;
    }
  }

  /** Find the best node (upstream's schedulePod); throws NoNodesAvailableError, FitError or an Error. */
  private async schedulePod(fwk: Framework, state: CycleState, pod: Pod): Promise<ScheduleResult> {
    this.o.cache.updateSnapshot(this.o.snapshot);
    const numNodes = this.o.snapshot.numNodes;
    if (numNodes === 0) throw new NoNodesAvailableError();
    const { feasible, diagnosis } = await this.findNodesThatFitPod(fwk, state, pod);
    if (feasible.length === 0) throw new FitError(podKey(pod), numNodes, diagnosis);
    if (feasible.length === 1) return { suggestedHost: feasible[0]!.name, evaluatedNodes: 1 + diagnosis.nodeToStatus.size, feasibleNodes: 1 };
    const scores = this.prioritizeNodes(fwk, state, pod, feasible);
    return { suggestedHost: selectHost(scores, this.random), evaluatedNodes: feasible.length + diagnosis.nodeToStatus.size, feasibleNodes: feasible.length };
  }

  private async findNodesThatFitPod(fwk: Framework, state: CycleState, pod: Pod): Promise<{ feasible: NodeInfo[]; diagnosis: Diagnosis }> {
    const diagnosis = newDiagnosis(new NodeToStatus());
    const allNodes = this.o.snapshot.list();
    const t = performance.now();
    const pre = fwk.runPreFilterPlugins(state, pod, allNodes);
    this.metrics.extensionPoint('PreFilter', statusLabel(pre.status), fwk.profileName, (performance.now() - t) / 1000);
    for (const name of pre.unschedulablePlugins) diagnosis.unschedulablePlugins.add(name);
    if (!isSuccess(pre.status)) {
      const status = pre.status!;
      if (!status.isRejected()) throw asError(status);
      diagnosis.nodeToStatus.absentNodesStatus = status;
      diagnosis.preFilterMsg = status.message();
      addPluginStatus(diagnosis, status);
      return { feasible: [], diagnosis };
    }
    // A node nominated by an earlier preemption is likely the only one that fits: try it first.
    const nominated = pod.status?.nominatedNodeName ?? '';
    if (nominated !== '') {
      const nodeInfo = this.o.snapshot.get(nominated);
      if (nodeInfo !== undefined) {
        const feasible = await this.findNodesThatPassFilters(fwk, state, pod, diagnosis, [nodeInfo], 0);
        if (feasible.length > 0) return { feasible, diagnosis };
      }
    }
    let nodes: readonly NodeInfo[] = allNodes;
    const names = pre.result?.nodeNames;
    if (names !== undefined) {
      const subset: NodeInfo[] = [];
      for (const name of names) {
        const nodeInfo = this.o.snapshot.get(name);
        if (nodeInfo !== undefined) subset.push(nodeInfo);
      }
      nodes = subset;
      diagnosis.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [`node(s) didn't satisfy plugin(s) [${[...pre.unschedulablePlugins].join(' ')}]`]);
    }
    const before = diagnosis.nodeToStatus.size;
    const feasible = await this.findNodesThatPassFilters(fwk, state, pod, diagnosis, nodes, this.nextStartNodeIndex);
    const processed = feasible.length + diagnosis.nodeToStatus.size - before;
    if (allNodes.length > 0) this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % allNodes.length;
    return { feasible, diagnosis };
  }

  /** Filter `nodes` from `startIndex` (wrapping), in chunks with a yield between them, until enough feasible nodes are found. */
  private async findNodesThatPassFilters(fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: readonly NodeInfo[], startIndex: number): Promise<NodeInfo[]> {
    const numAll = nodes.length;
    if (numAll === 0) return [];
    const toFind = numFeasibleNodesToFind(fwk.percentageOfNodesToScore ?? this.o.percentageOfNodesToScore, numAll);
    const feasible: NodeInfo[] = [];
    if (!fwk.hasFilterPlugins()) {
      for (let i = 0; i < toFind; i++) feasible.push(nodes[(startIndex + i) % numAll]!);
      return feasible;
    }
    let i = 0;
    while (i < numAll && feasible.length < toFind) {
      const end = Math.min(numAll, i + this.chunkSize);
      for (; i < end && feasible.length < toFind; i++) {
        const nodeInfo = nodes[(startIndex + i) % numAll]!;
        const status = fwk.runFilterPluginsWithNominatedPods(state, pod, nodeInfo);
        if (status === undefined || status.code === Code.Success) {
          feasible.push(nodeInfo);
        } else if (status.isRejected()) {
          diagnosis.nodeToStatus.set(nodeInfo.name, status);
          addPluginStatus(diagnosis, status);
        } else {
          throw asError(status);
        }
      }
      // Let watch events, binding responses and metrics scrapes run between chunks.
      if (i < numAll && feasible.length < toFind) await yieldToEventLoop();
    }
    return feasible;
  }

  private prioritizeNodes(fwk: Framework, state: CycleState, pod: Pod, nodes: readonly NodeInfo[]): NodePluginScores[] {
    if (!fwk.hasScorePlugins()) return nodes.map((n) => ({ name: n.name, scores: [], totalScore: 1 }));
    let t = performance.now();
    const pre = fwk.runPreScorePlugins(state, pod, nodes);
    this.metrics.extensionPoint('PreScore', statusLabel(pre), fwk.profileName, (performance.now() - t) / 1000);
    if (!isSuccess(pre)) throw asError(pre!);
    t = performance.now();
    const { scores, status } = fwk.runScorePlugins(state, pod, nodes);
    this.metrics.extensionPoint('Score', statusLabel(status), fwk.profileName, (performance.now() - t) / 1000);
    if (!isSuccess(status)) throw asError(status!);
    return scores;
  }

  private async bindingCycle(state: CycleState, fwk: Framework, result: ScheduleResult, assumed: QueuedPodInfo, original: QueuedPodInfo, start: number): Promise<void> {
    const assumedPod = assumed.podInfo.pod;
    const host = result.suggestedHost;
    const uid = assumedPod.metadata.uid ?? '';
    const permit = await fwk.waitOnPermit(assumedPod);
    if (!isSuccess(permit)) {
      await this.handleBindingFailure(state, fwk, assumedPod, original, this.singleNodeFailure(assumedPod, host, permit!), start);
      return;
    }
    // From here on a failure is not the pod's fault: it goes to the backoff queue.
    this.o.queue.done(uid);
    let t = performance.now();
    const preBind = await fwk.runPreBindPlugins(state, assumedPod, host);
    this.metrics.extensionPoint('PreBind', statusLabel(preBind), fwk.profileName, (performance.now() - t) / 1000);
    if (!isSuccess(preBind)) {
      await this.handleBindingFailure(state, fwk, assumedPod, original, this.singleNodeFailure(assumedPod, host, preBind!), start);
      return;
    }
    t = performance.now();
    const bind = await fwk.runBindPlugins(state, assumedPod, host);
    this.metrics.extensionPoint('Bind', statusLabel(bind), fwk.profileName, (performance.now() - t) / 1000);
    if (!isSuccess(bind)) {
      try {
        this.o.cache.finishBinding(assumedPod);
      } catch {
        // forgetPod below undoes the assumption anyway.
      }
      await this.handleBindingFailure(state, fwk, assumedPod, original, bind!.code === Code.Skip ? errorStatus(new Error('no bind plugin bound the pod')) : bind!, start);
      return;
    }
    try {
      this.o.cache.finishBinding(assumedPod);
    } catch (e: unknown) {
      this.o.logger.error({ err: e, pod: podKey(assumedPod) }, 'Scheduler cache FinishBinding failed');
    }
    this.o.recorderFor(fwk.profileName).event(assumedPod, 'Normal', 'Scheduled', `Successfully assigned ${podKey(assumedPod)} to ${host}`);
    this.o.logger.debug({ pod: podKey(assumedPod), node: host, evaluatedNodes: result.evaluatedNodes, feasibleNodes: result.feasibleNodes }, 'Successfully bound pod to node');
    this.metrics.attempt('scheduled', fwk.profileName, (performance.now() - start) / 1000);
    this.metrics.podSchedulingAttempts(assumed.attempts);
    fwk.runPostBindPlugins(state, assumedPod, host);
  }

  private async handleBindingFailure(state: CycleState, fwk: Framework, assumedPod: Pod, original: QueuedPodInfo, status: Status, start: number): Promise<void> {
    const host = assumedPod.spec?.nodeName ?? '';
    fwk.runReservePluginsUnreserve(state, assumedPod, host);
    const forgotten = this.forget(assumedPod);
    // The assumed pod held room in the cache: forgetting it is an assigned-pod delete for the pods waiting.
    const freeRoom = (): void => {
      if (forgotten) this.o.queue.moveAllToActiveOrBackoffQueue({ resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, assumedPod, undefined);
    };
    // A rejected pod itself must not be moved by its own event, so the move waits until it is back in the queue.
    if (!status.isRejected()) freeRoom();
    await this.handleFailure(fwk, original, status, CLEAR_NOMINATED_NODE, start);
    if (status.isRejected()) freeRoom();
  }

  /** Upstream's handleSchedulingFailure. */
  private async handleFailure(fwk: Framework, qpi: QueuedPodInfo, status: Status, nominatingInfo: NominatingInfo | undefined, start: number): Promise<void> {
    const pod = qpi.podInfo.pod;
    const uid = pod.metadata.uid ?? '';
    const rejected = status.isRejected();
    const reason = rejected ? 'Unschedulable' : 'SchedulerError';
    this.metrics.attempt(rejected ? 'unschedulable' : 'error', fwk.profileName, (performance.now() - start) / 1000);
    const error = status.error;
    const message = status.message();
    if (error instanceof FitError) {
      qpi.unschedulablePlugins = new Set(error.diagnosis.unschedulablePlugins);
      qpi.pendingPlugins = new Set(error.diagnosis.pendingPlugins);
      this.o.logger.debug({ pod: podKey(pod), err: message }, 'Unable to schedule pod; no fit; waiting');
    } else if (error instanceof NoNodesAvailableError) {
      qpi.unschedulablePlugins = new Set();
      qpi.pendingPlugins = new Set();
      this.o.logger.debug({ pod: podKey(pod) }, 'Unable to schedule pod; no nodes are registered to the cluster; waiting');
    } else {
      qpi.unschedulablePlugins = new Set();
      qpi.pendingPlugins = new Set();
      this.o.logger.error({ pod: podKey(pod), err: message }, 'Error scheduling pod; retrying');
    }
    const { namespace = '', name = '' } = pod.metadata;
    const live = this.o.getPod === undefined ? pod : this.o.getPod(namespace, name);
    if (live === undefined || live.metadata.uid !== pod.metadata.uid) {
      this.o.logger.info({ pod: podKey(pod) }, 'Pod doesn\'t exist in informer cache');
    } else if ((live.spec?.nodeName ?? '') !== '') {
      this.o.logger.info({ pod: podKey(pod), node: live.spec?.nodeName }, 'Pod has been assigned to node. Abort adding it back to queue.');
    } else {
      if (live !== pod) qpi.podInfo = new PodInfo(live);
      this.o.queue.addUnschedulableIfNotPresent(qpi, this.o.queue.schedulingCycle());
    }
    // After the re-queue, which replays the events that arrived during the cycle (done() is idempotent).
    this.o.queue.done(uid);
    // Record the nomination at once, so that the next cycles count the pod on its node before the status update comes back.
    if (nominatingInfo?.mode === 'Override') this.o.queue.addNominatedPod(qpi.podInfo, nominatingInfo.nominatedNodeName);
    else this.o.queue.addNominatedPod(qpi.podInfo);
    const eventMessage = message.length > NOTE_LENGTH_LIMIT ? `${message.slice(0, NOTE_LENGTH_LIMIT - 3)}...` : message;
    this.o.recorderFor(fwk.profileName).event(pod, 'Warning', 'FailedScheduling', eventMessage);
    await this.updatePodStatus(live ?? pod, reason, message, nominatingInfo);
  }

  /** Write PodScheduled=False (and status.nominatedNodeName) if they change, with a strategic merge patch of pods/status; retried on failure. */
  private async updatePodStatus(pod: Pod, reason: string, message: string, nominatingInfo: NominatingInfo | undefined): Promise<void> {
    const current = (pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const conditionChanges = current === undefined || current.status !== 'False' || current.reason !== reason || current.message !== message;
    const nominatedChanges = nominatingInfo?.mode === 'Override' && (pod.status?.nominatedNodeName ?? '') !== nominatingInfo.nominatedNodeName;
    if (!conditionChanges && !nominatedChanges) return;
    const status: Record<string, unknown> = {};
    if (conditionChanges) {
      const lastTransitionTime = current?.status === 'False' && current.lastTransitionTime !== undefined ? current.lastTransitionTime : formatTime(new Date());
      status.conditions = [{ type: 'PodScheduled', status: 'False', reason, message, lastProbeTime: null, lastTransitionTime }];
    }
    if (nominatedChanges) status.nominatedNodeName = nominatingInfo!.nominatedNodeName === '' ? null : nominatingInfo!.nominatedNodeName;
    const { namespace = '', name = '' } = pod.metadata;
    const attempts = this.o.statusWriteAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.o.client.resource<Pod>(PODS).patch(name, 'strategic', { status }, { namespace, subresource: 'status' });
        return;
      } catch (e: unknown) {
        if (isNotFound(e) || attempt >= attempts) {
          this.o.logger.error({ err: e, pod: podKey(pod) }, 'Error updating pod');
          return;
        }
        await new Promise<void>((resolve) => setTimeout(resolve, 10 * 5 ** (attempt - 1)).unref());
      }
    }
  }
}
