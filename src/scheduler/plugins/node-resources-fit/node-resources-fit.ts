/**
 * NodeResourcesFit: Filter turns down nodes without room for the pod's
 * requests (pods count, cpu, memory, ephemeral-storage, extended and other
 * scalar resources; init containers, sidecars and overhead counted by
 * computePodRequests), with one upstream reason per short resource; Score
 * ranks nodes by the configured strategy (LeastAllocated, MostAllocated,
 * RequestedToCapacityRatio) on non-zero requests. Requests are computed once
 * per cycle (PreFilter, PreScore).
 */
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, PluginFactory, PreFilterOutcome, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces.js';
import { NodeInfo } from '../../framework/node-info.js';
import { computePodRequests, resourceFromList, type Resource } from '../../framework/resource.js';
import { errorStatus, unschedulable, type PluginStatus, type Status } from '../../framework/status.js';
import type { Node, Pod } from '../../framework/types.js';
import { podRequestList, resourceAmount, scoreResourceAllocation, type ResourceScorer, type ResourceSpec } from '../helper/resource-allocation.js';
import { parseNodeResourcesFitArgs, type NodeResourcesFitArgs } from './args.js';
import { leastAllocatedScorer, mostAllocatedScorer, requestedToCapacityRatioScorer } from './scorers.js';

export const NAME = 'NodeResourcesFit';
const PRE_FILTER_KEY = `PreFilter${NAME}`;
const PRE_SCORE_KEY = `PreScore${NAME}`;

export const REASON_TOO_MANY_PODS = 'Too many pods';
const NONE: ReadonlySet<string> = new Set();
const NO_REASONS: readonly string[] = Object.freeze([]);
export const insufficientReason = (resource: string): string => `Insufficient ${resource}`;

/** An extended resource (example.com/gpu): not native (no `/`, or `kubernetes.io/`), not a `requests.` quota name. */
export function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return !native && !name.startsWith('requests.');
}

/**
 * The upstream reasons why `request` does not fit the node ([] when it
 * fits). Ignored resources and resource groups apply to extended resources only.
 */
export function insufficientResources(
  request: Resource,
  nodeInfo: NodeInfo,
  ignoredResources: ReadonlySet<string> = NONE,
  ignoredGroups: ReadonlySet<string> = NONE,
): readonly string[] {
  // Filter runs for every node: allocate only when something is short.
  let reasons: string[] | undefined;
  const allocatable = nodeInfo.allocatable;
  const requested = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > allocatable.allowedPodNumber) (reasons ??= []).push(REASON_TOO_MANY_PODS);
  if (request.milliCPU === 0 && request.memory === 0 && request.ephemeralStorage === 0 && request.scalar.size === 0) return reasons ?? NO_REASONS;
  if (request.milliCPU > 0 && request.milliCPU > allocatable.milliCPU - requested.milliCPU) (reasons ??= []).push('Insufficient cpu');
  if (request.memory > 0 && request.memory > allocatable.memory - requested.memory) (reasons ??= []).push('Insufficient memory');
  if (request.ephemeralStorage > 0 && request.ephemeralStorage > allocatable.ephemeralStorage - requested.ephemeralStorage) {
    (reasons ??= []).push('Insufficient ephemeral-storage');
  }
  if (request.scalar.size > 0) {
    for (const [name, quantity] of request.scalar) {
      if (quantity === 0) continue;
      if (isExtendedResourceName(name)) {
        if (ignoredResources.has(name)) continue;
        if (ignoredGroups.size > 0 && ignoredGroups.has(name.split('/')[0] ?? '')) continue;
      }
      if (quantity > (allocatable.scalar.get(name) ?? 0) - (requested.scalar.get(name) ?? 0)) (reasons ??= []).push(insufficientReason(name));
    }
  }
  return reasons ?? NO_REASONS;
}

/** Whether the pod fits an empty node of this kind (the queueing hints' check). */
function fitsEmptyNode(request: Resource, node: Node): boolean {
  const info = new NodeInfo();
  info.setNode(node);
  return insufficientResources(request, info).length === 0;
}

function scorerFor(args: NodeResourcesFitArgs): ResourceScorer {
  const { type, resources, requestedToCapacityRatio } = args.scoringStrategy;
  switch (type) {
    case 'LeastAllocated':
      return leastAllocatedScorer(resources);
    case 'MostAllocated':
      return mostAllocatedScorer(resources);
    case 'RequestedToCapacityRatio':
      return requestedToCapacityRatioScorer(resources, requestedToCapacityRatio?.shape ?? []);
  }
}

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly ignoredResources: ReadonlySet<string>;
  private readonly ignoredGroups: ReadonlySet<string>;
  private readonly resources: readonly ResourceSpec[];
  private readonly scorer: ResourceScorer;

  constructor(readonly args: NodeResourcesFitArgs) {
    this.ignoredResources = new Set(args.ignoredResources);
    this.ignoredGroups = new Set(args.ignoredResourceGroups);
    this.resources = args.scoringStrategy.resources;
    this.scorer = scorerFor(args);
  }

  preFilter(state: CycleState, pod: Pod): PreFilterOutcome {
    state.write(PRE_FILTER_KEY, computePodRequests(pod));
    return {};
  }

  preFilterExtensions(): undefined {
    return undefined;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const request = state.read<Resource>(PRE_FILTER_KEY);
    if (request === undefined) return errorStatus(new Error(`error reading "${PRE_FILTER_KEY}" from cycleState: not found`));
    const reasons = insufficientResources(request, nodeInfo, this.ignoredResources, this.ignoredGroups);
    return reasons.length === 0 ? undefined : unschedulable(...reasons);
  }

  preScore(state: CycleState, pod: Pod): PluginStatus {
    state.write(PRE_SCORE_KEY, podRequestList(pod, this.resources, false));
    return undefined;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    const podRequests = state.read<number[]>(PRE_SCORE_KEY) ?? podRequestList(pod, this.resources, false);
    return scoreResourceAllocation(nodeInfo, this.resources, podRequests, false, this.scorer);
  }

  scoreExtensions(): undefined {
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Pod', actionType: ActionType.Delete | ActionType.UpdatePodScaleDown, label: 'AssignedPodDelete|UpdatePodScaleDown' },
        hint: isSchedulableAfterPodEvent,
      },
      // Upstream's Pod registration also covers the pending pod's own updates: its own scale-down may let it fit.
      {
        event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodScaleDown, label: 'UnschedulablePodUpdatePodScaleDown' },
        hint: (pod, _old, newObject) => ((newObject as Pod | undefined)?.metadata.uid === pod.metadata.uid ? QueueingHint.Queue : QueueingHint.Skip),
      },
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeAllocatable, label: 'NodeAdd|UpdateNodeAllocatable' },
        hint: isSchedulableAfterNodeChange,
      },
    ];
  }
}

/** A deleted assigned pod may free room; a scaled-down one only if it gave back something this pod asks for (or it is this pod). */
function isSchedulableAfterPodEvent(pod: Pod, oldObject: unknown, newObject: unknown): QueueingHint {
  const before = oldObject as Pod | undefined;
  const after = newObject as Pod | undefined;
  if (after === undefined) {
    return before === undefined || (before.spec?.nodeName ?? '') === '' ? QueueingHint.Skip : QueueingHint.Queue;
  }
  if (after.metadata.uid === pod.metadata.uid) return QueueingHint.Queue;
  if ((after.spec?.nodeName ?? '') === '' || before === undefined) return QueueingHint.Skip;
  const was = computePodRequests(before);
  const now = computePodRequests(after);
  const wanted = computePodRequests(pod);
  const names = ['cpu', 'memory', 'ephemeral-storage', ...wanted.scalar.keys()];
  for (const name of names) {
    if (resourceAmount(wanted, name) === 0) continue;
    if (resourceAmount(was, name) > resourceAmount(now, name)) return QueueingHint.Queue;
  }
  return QueueingHint.Skip;
}

/** An added node that fits the pod, or a node whose allocatable grew in something the pod asks for (and now fits). */
function isSchedulableAfterNodeChange(pod: Pod, oldObject: unknown, newObject: unknown): QueueingHint {
  const before = oldObject as Node | undefined;
  const after = newObject as Node | undefined;
  if (after === undefined) return QueueingHint.Skip;
  const request = computePodRequests(pod);
  if (!fitsEmptyNode(request, after)) return QueueingHint.Skip;
  if (before === undefined) return QueueingHint.Queue;
  return anyRequestedResourceIncreased(request, before, after) ? QueueingHint.Queue : QueueingHint.Skip;
}

function anyRequestedResourceIncreased(request: Resource, before: Node, after: Node): boolean {
  const was = resourceFromList(before.status?.allocatable as Record<string, string> | undefined);
  const now = resourceFromList(after.status?.allocatable as Record<string, string> | undefined);
  if (now.allowedPodNumber > was.allowedPodNumber) return true;
  if (request.milliCPU > 0 && now.milliCPU > was.milliCPU) return true;
  if (request.memory > 0 && now.memory > was.memory) return true;
  if (request.ephemeralStorage > 0 && now.ephemeralStorage > was.ephemeralStorage) return true;
  for (const [name, quantity] of request.scalar) {
    if (quantity !== 0 && (now.scalar.get(name) ?? 0) > (was.scalar.get(name) ?? 0)) return true;
  }
  return false;
}

/** Validates NodeResourcesFitArgs (upstream's defaults and messages) at construction. */
export const newNodeResourcesFit: PluginFactory = (args) => new NodeResourcesFit(parseNodeResourcesFitArgs(args));
