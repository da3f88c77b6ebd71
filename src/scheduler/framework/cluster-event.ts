/**
 * Cluster events that can make a rejected pod schedulable (upstream's
 * framework.ClusterEvent). Each plugin declares the events that could undo
 * its rejections (EnqueueExtensions); when such an event happens, the queue
 * moves the pods that plugin rejected out of the unschedulable pool — after
 * asking the plugin's QueueingHintFn, if it gave one, whether this particular
 * change can help this particular pod. Nothing is retried by a blind timer
 * (apart from upstream's 5-minute safety flush of the unschedulable pool).
 */
import type { Pod } from './types.js';

/**
 * What changed. `Pod` is a pod other than the one being scheduled (an
 * assigned pod added, updated or deleted); `UnscheduledPod` is the pending pod
 * itself being updated; `WildCard` matches every resource.
 */
export type EventResource = 'Pod' | 'UnscheduledPod' | 'Node' | 'Namespace' | 'PodDisruptionBudget' | 'PriorityClass' | 'WildCard';

/** How it changed: bit flags, so a plugin can register several at once. */
export const ActionType = {
  Add: 1 << 0,
  Delete: 1 << 1,
  UpdateNodeAllocatable: 1 << 2,
  UpdateNodeLabel: 1 << 3,
  UpdateNodeTaint: 1 << 4,
  UpdateNodeCondition: 1 << 5,
  UpdateNodeAnnotation: 1 << 6,
  UpdatePodLabel: 1 << 7,
  /** A pod's requests went down (in-place resize) */
  UpdatePodScaleDown: 1 << 8,
  UpdatePodTolerations: 1 << 9,
  UpdatePodSchedulingGatesEliminated: 1 << 10,
  /** Any other update. */
  UpdateOther: 1 << 11,
} as const;

/** Every kind of update. */
export const UPDATE_ANY = (1 << 12) - 1 - ActionType.Add - ActionType.Delete;
/** Anything at all. */
export const ALL_ACTIONS = (1 << 12) - 1;

export interface ClusterEvent {
  readonly resource: EventResource;
  /** ActionType flags, or-ed together. */
  readonly actionType: number;
  /** For logs and metrics, e.g. `NodeAdd`, `AssignedPodDelete`. */
  readonly label?: string;
}

export enum QueueingHint {
  /** This change cannot help the pod: leave it in the unschedulable pool. */
  Skip = 0,
  /** This change may help: move the pod to the active (or backoff) queue. */
  Queue = 1,
}

/**
 * Whether a change (oldObject → newObject; oldObject undefined for Add,
 * newObject undefined for Delete) could make `pod` schedulable for the plugin
 * that registered it. Must be fast and must not throw (an exception counts as Queue).
 */
export type QueueingHintFn = (pod: Pod, oldObject: unknown, newObject: unknown) => QueueingHint;

export interface ClusterEventWithHint {
  readonly event: ClusterEvent;
  /** Without a hint every matching event re-queues the pod. */
  readonly hint?: QueueingHintFn;
}

/** Whether a registered event covers an event that happened (same resource or WildCard, and a shared action bit). */
export function eventMatches(registered: ClusterEvent, happened: ClusterEvent): boolean {
  const resourceMatches = registered.resource === 'WildCard' || registered.resource === happened.resource;
  return resourceMatches && (registered.actionType & happened.actionType) !== 0;
}
