/**
 * DefaultPreemption, the PostFilter plugin (upstream's defaultpreemption):
 * when a pod fits no node, evict lower-priority pods from the one node where
 * that hurts least and nominate the pod to it (status.nominatedNodeName), so
 * that the next cycles keep room for it there while the victims terminate.
 * The search is the generic {@link Evaluator}; this plugin decides who may
 * preempt, which pods a node gives up and how many candidates to look at.
 *
 * The Status message is the reason only; the scheduler joins it to the
 * FitError after "preemption: " (the framework contract).
 *
 * No cluster events: with preemption done synchronously (the pod is never
 * held back by this plugin) upstream registers none; the plugins that
 * rejected the pod re-queue it.
 */
import { POD_DISRUPTION_BUDGETS } from '../../../client/rest/resources.js';
import type { ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { EnqueueExtensions, Handle, PluginFactory, PostFilterOutcome, PostFilterPlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { NodeToStatus } from '../../framework/node-to-status.js';
import { Evaluator, type PodDisruptionBudget, type PreemptionInterface, type SelectedVictims } from '../../framework/preemption/evaluator.js';
import { errorStatus, type Status } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { calculateNumCandidates, parseDefaultPreemptionArgs, type DefaultPreemptionArgs } from './args.js';
import { podEligibleToPreemptOthers } from './eligibility.js';
import { selectVictimsOnNode } from './select-victims.js';

export const NAME = 'DefaultPreemption';

export interface DefaultPreemptionOptions {
  /** A random integer in [0, n) for the dry run's starting offset (default Math.random). */
  readonly randomInt?: (n: number) => number;
  /** Nodes dry-run between two yields to the event loop. */
  readonly chunkSize?: number;
  readonly now?: () => Date;
}

export class DefaultPreemption implements PostFilterPlugin, EnqueueExtensions, PreemptionInterface {
  readonly name = NAME;
  private readonly evaluator: Evaluator;
  private readonly randomInt: (n: number) => number;
  private readonly now: () => Date;

  constructor(
    readonly args: DefaultPreemptionArgs,
    private readonly handle: Handle,
    options: DefaultPreemptionOptions = {},
  ) {
    this.randomInt = options.randomInt ?? ((n) => Math.floor(Math.random() * n));
    this.now = options.now ?? (() => new Date());
    // Asked for at construction, as upstream does, so that the factory starts the informer with the others.
    const pdbInformer = handle.informers.informerFor<PodDisruptionBudget>(POD_DISRUPTION_BUDGETS);
    this.evaluator = new Evaluator({
      pluginName: NAME,
      handle,
      plugin: this,
      listPodDisruptionBudgets: () => pdbInformer.indexer.list(),
      now: this.now,
      ...(options.chunkSize !== undefined ? { chunkSize: options.chunkSize } : {}),
    });
  }

  async postFilter(state: CycleState, pod: Pod, filteredNodeStatus: NodeToStatus): Promise<PostFilterOutcome> {
    try {
      return await this.evaluator.preempt(state, pod, filteredNodeStatus);
    } catch (e: unknown) {
      return { status: errorStatus(e) };
    }
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [];
  }

  getOffsetAndNumCandidates(numNodes: number): { offset: number; numCandidates: number } {
    return { offset: numNodes > 0 ? this.randomInt(numNodes) : 0, numCandidates: calculateNumCandidates(this.args, numNodes) };
  }

  podEligibleToPreemptOthers(pod: Pod, nominatedNodeStatus: Status): { eligible: boolean; message: string } {
    return podEligibleToPreemptOthers(this.handle.snapshot.nodeInfos(), pod, nominatedNodeStatus);
  }

  selectVictimsOnNode(state: CycleState, pod: Pod, nodeInfo: NodeInfo, pdbs: readonly PodDisruptionBudget[]): SelectedVictims {
    return selectVictimsOnNode({ framework: this.handle.framework, state, pod, nodeInfo, pdbs, now: this.now().getTime() });
  }
}

/** pluginConfig args: DefaultPreemptionArgs (minCandidateNodesPercentage, minCandidateNodesAbsolute) or none. */
export const newDefaultPreemption: PluginFactory = (args, handle) => new DefaultPreemption(parseDefaultPreemptionArgs(args), handle);
