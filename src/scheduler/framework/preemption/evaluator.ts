/**
 * The generic part of preemption (upstream's preemption.Evaluator): given a
 * pod that fits nowhere, find the nodes where removing lower-priority pods
 * would make room (a dry run on copies of the nodes and of the cycle state),
 * pick the best one, evict its victims and nominate the pod to it.
 *
 * What is particular to a preemption plugin (who is eligible, which victims a
 * node gives up, how many candidates to look at) comes through
 * {@link PreemptionInterface}; DefaultPreemption is one implementation.
 *
 * The dry run examines candidates one node at a time, yielding to the event
 * loop every `chunkSize` nodes, so that a cluster of thousands of nodes does
 * not starve watch events and binding while it runs.
 */
import type { PodDisruptionBudget as PodDisruptionBudgetType } from 'kubernetes-types/policy/v1.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { CycleState } from '../cycle-state.js';
import type { Handle, NodeInfoLister, PostFilterOutcome } from '../interfaces.js';
import type { NodeInfo } from '../node-info.js';
import { NodeToStatus } from '../node-to-status.js';
import { Code, errorStatus, isSuccess, Status, type PluginStatus } from '../status.js';
import type { Pod } from '../types.js';
import type { Candidate, Victims } from './candidate.js';
import { noNodesAvailableMessage } from './fit-error-message.js';
import { pickOneNodeForPreemption, type NodeScoreFunc } from './pick-one-node.js';
import { podPriority } from './pod-priority.js';
import { clearNominatedNodeName, preemptPod } from './preempt-pod.js';
import { goQuote } from '../../../machinery/validation/go-text.js';

export type PodDisruptionBudget = KubeObject & PodDisruptionBudgetType;

/** The reason of the absent-nodes status when no candidate is found (upstream's wording). */
export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';

export interface SelectedVictims {
  /** Ordered from the most to the least important. */
  readonly victims: readonly Pod[];
  readonly numPDBViolations: number;
  /** Success, or why the node cannot be a candidate. */
  readonly status: PluginStatus;
}

/** What a preemption plugin decides (upstream's preemption.Interface). */
export interface PreemptionInterface {
  /** Where to start in the potential nodes and how many candidates to look for. */
  getOffsetAndNumCandidates(numNodes: number): { readonly offset: number; readonly numCandidates: number };
  /** Whether the pod may preempt at all; `message` says why not (it becomes the Unschedulable status message). */
  podEligibleToPreemptOthers(pod: Pod, nominatedNodeStatus: Status): { readonly eligible: boolean; readonly message: string };
  /**
   * The fewest pods to remove from the node so that the pod fits. `state` and
   * `nodeInfo` are copies the implementation may change.
   */
  selectVictimsOnNode(state: CycleState, pod: Pod, nodeInfo: NodeInfo, pdbs: readonly PodDisruptionBudget[]): SelectedVictims;
  /** Score functions to pick among candidates; undefined or empty: upstream's defaults. */
  orderedScoreFuncs?(nodesToVictims: ReadonlyMap<string, Victims>): NodeScoreFunc[] | undefined;
}

export interface EvaluatorOptions {
  readonly pluginName: string;
  readonly handle: Handle;
  readonly plugin: PreemptionInterface;
  /** The PodDisruptionBudgets of the cluster (from the informer's cache). */
  readonly listPodDisruptionBudgets: () => readonly PodDisruptionBudget[];
  /** Nodes dry-run between two yields to the event loop (default 100). */
  readonly chunkSize?: number;
  /** The clock (start times of pods that have none, condition timestamps). */
  readonly now?: () => Date;
}

export interface DryRunResult {
  /** Candidates that violate no PDB first, then the others. */
  readonly candidates: Candidate[];
  /** Why each examined node that is not a candidate is not one. */
  readonly nodeStatuses: NodeToStatus;
  /** Errors met on the way (Error statuses). */
  readonly errors: Error[];
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Several errors as one, as upstream's utilerrors aggregate prints them. */
function aggregate(errors: readonly Error[]): Error {
  if (errors.length === 1) return errors[0]!;
  return new Error(`[${errors.map((e) => e.message).join(', ')}]`);
}

/** The nodes whose status has `code` (upstream's NodeToStatus.NodesForStatusCode), in the lister's order when absent nodes count. */
export function nodesForStatusCode(statuses: NodeToStatus, lister: NodeInfoLister, code: Code): NodeInfo[] {
  if (statuses.absentNodesStatus.code === code) return lister.list().filter((n) => statuses.get(n.name).code === code);
  const nodes: NodeInfo[] = [];
  for (const [name, status] of statuses.entries()) {
    if (status.code !== code) continue;
    const nodeInfo = lister.get(name);
    if (nodeInfo !== undefined) nodes.push(nodeInfo);
  }
  return nodes;
}

export class Evaluator {
  private readonly handle: Handle;
  private readonly plugin: PreemptionInterface;
  private readonly chunkSize: number;
  private readonly now: () => Date;

  constructor(private readonly options: EvaluatorOptions) {
    this.handle = options.handle;
    this.plugin = options.plugin;
    this.chunkSize = Math.max(1, options.chunkSize ?? 100);
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Upstream's Evaluator.Preempt:
   * - not eligible: Unschedulable with the reason, no result (the nomination is kept);
   * - no candidate: Unschedulable with the FitError text, and a result that clears the nomination;
   * - an error: Error, no result;
   * - otherwise the victims are evicted and the result nominates the chosen node (Success).
   */
  async preempt(state: CycleState, pod: Pod, filteredNodeStatus: NodeToStatus): Promise<PostFilterOutcome> {
    const nominatedNodeName = pod.status?.nominatedNodeName ?? '';
    const { eligible, message } = this.plugin.podEligibleToPreemptOthers(pod, filteredNodeStatus.get(nominatedNodeName));
    if (!eligible) {
      this.handle.logger.debug({ pod: podName(pod), reason: message }, 'Pod is not eligible for preemption');
      return { status: new Status(Code.Unschedulable, [message]) };
    }

    const allNodes = this.handle.snapshot.nodeInfos().list();
    if (allNodes.length === 0) return { status: errorStatus(new Error('no nodes available')) };
    const { candidates, nodeStatuses, errors } = await this.findCandidates(state, pod, filteredNodeStatus);
    if (errors.length > 0 && candidates.length === 0) return { status: errorStatus(aggregate(errors)) };

    if (candidates.length === 0) {
      this.handle.logger.debug({ pod: podName(pod) }, 'No preemption candidate is found; preemption is not helpful for scheduling');
      nodeStatuses.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [PREEMPTION_NOT_HELPFUL]);
      return {
        result: { nominatingInfo: { nominatedNodeName: '', mode: 'Override' } },
        status: new Status(Code.Unschedulable, [noNodesAvailableMessage(allNodes.length, nodeStatuses)]),
      };
    }

    const best = this.selectCandidate(candidates);
    if (best === undefined || best.name === '') return { status: new Status(Code.Unschedulable, ['no candidate node for preemption']) };
    this.handle.logger.debug({ pod: podName(pod), node: best.name }, 'the target node for the preemption is determined');

    const prepared = await this.prepareCandidate(best, pod);
    if (!isSuccess(prepared)) return { status: prepared };
    return { result: { nominatingInfo: { nominatedNodeName: best.name, mode: 'Override' } } };
  }

  /** The nodes rejected as Unschedulable (not Unresolvable), dry-run from a random offset. */
  async findCandidates(state: CycleState, pod: Pod, filteredNodeStatus: NodeToStatus): Promise<DryRunResult> {
    const potentialNodes = nodesForStatusCode(filteredNodeStatus, this.handle.snapshot.nodeInfos(), Code.Unschedulable);
    if (potentialNodes.length === 0) {
      this.handle.logger.debug({ pod: podName(pod) }, 'Preemption will not help schedule pod on any node');
      return { candidates: [], nodeStatuses: new NodeToStatus(), errors: [] };
    }
    const pdbs = this.options.listPodDisruptionBudgets();
    const { offset, numCandidates } = this.plugin.getOffsetAndNumCandidates(potentialNodes.length);
    return this.dryRunPreemption(state, pod, potentialNodes, pdbs, offset, numCandidates);
  }

  /**
   * Select victims on each potential node, starting at `offset` and wrapping
   * around, until at least one PDB-respecting candidate is found and
   * `numCandidates` candidates in all (upstream's DryRunPreemption).
   */
  async dryRunPreemption(
    state: CycleState,
    pod: Pod,
    potentialNodes: readonly NodeInfo[],
    pdbs: readonly PodDisruptionBudget[],
    offset: number,
    numCandidates: number,
  ): Promise<DryRunResult> {
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    const nodeStatuses = new NodeToStatus();
    const errors: Error[] = [];
    for (let i = 0; i < potentialNodes.length; i++) {
      if (i > 0 && i % this.chunkSize === 0) await yieldToEventLoop();
      const nodeInfo = potentialNodes[(offset + i) % potentialNodes.length]!.clone();
      const name = nodeInfo.name;
      let selected: SelectedVictims;
      try {
        selected = this.plugin.selectVictimsOnNode(state.clone(), pod, nodeInfo, pdbs);
      } catch (e: unknown) {
        selected = { victims: [], numPDBViolations: 0, status: errorStatus(e) };
      }
      let status = selected.status;
      if (isSuccess(status) && selected.victims.length > 0) {
        const candidate: Candidate = { name, victims: { pods: selected.victims, numPDBViolations: selected.numPDBViolations } };
        const list = selected.numPDBViolations === 0 ? nonViolating : violating;
        if (list.length < numCandidates) list.push(candidate);
        if (nonViolating.length > 0 && nonViolating.length + violating.length >= numCandidates) break;
        continue;
      }
      if (isSuccess(status)) status = errorStatus(new Error(`expected at least one victim pod on node ${goQuote(name)}`));
      const rejected = status ?? new Status(Code.Success);
      if (rejected.code === Code.Error) errors.push(rejected.error ?? new Error(rejected.message()));
      nodeStatuses.set(name, rejected);
    }
    return { candidates: [...nonViolating, ...violating], nodeStatuses, errors };
  }

  /** The best candidate (upstream's SelectCandidate). */
  selectCandidate(candidates: readonly Candidate[]): Candidate | undefined {
    if (candidates.length <= 1) return candidates[0];
    const nodesToVictims = new Map<string, Victims>();
    for (const c of candidates) nodesToVictims.set(c.name, c.victims);
    const scoreFuncs = this.plugin.orderedScoreFuncs?.(nodesToVictims);
    const node = pickOneNodeForPreemption(nodesToVictims, { scoreFuncs, now: this.now().getTime() });
    const victims = nodesToVictims.get(node);
    return victims === undefined ? candidates[0] : { name: node, victims };
  }

  /**
   * Evict the victims (all at once; the first failure is the result) and take
   * the nomination away from lower-priority pods nominated to the node
   * (failures there are only logged, as upstream).
   */
  async prepareCandidate(candidate: Candidate, pod: Pod): Promise<PluginStatus> {
    const { handle, pluginName } = this.options;
    const failures: unknown[] = [];
    await Promise.all(
      candidate.victims.pods.map(async (victim) => {
        if (victim.metadata.deletionTimestamp !== undefined && victim.metadata.deletionTimestamp !== null) {
          handle.logger.debug({ preemptor: podName(pod), victim: podName(victim), node: candidate.name }, 'Victim Pod is already being deleted, skipping the API call for it');
          return;
        }
        try {
          await preemptPod({ handle, pluginName, preemptor: pod, victim, nodeName: candidate.name, now: this.now });
        } catch (e: unknown) {
          handle.logger.error({ err: e, preemptor: podName(pod), victim: podName(victim) }, 'Tried to preempt pod');
          failures.push(e);
        }
      }),
    );
    if (failures.length > 0) return errorStatus(failures[0]);

    const priority = podPriority(pod);
    const lowerPriorityNominated = handle.nominator
      .nominatedPodsForNode(candidate.name)
      .map((info) => info.pod)
      .filter((p) => podPriority(p) < priority);
    const errors = await clearNominatedNodeName(handle, lowerPriorityNominated);
    for (const e of errors) handle.logger.error({ err: e }, "Cannot clear 'NominatedNodeName' field");
    return undefined;
  }
}

function podName(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}
