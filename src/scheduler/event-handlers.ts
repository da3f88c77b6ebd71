/**
 * From informer events to the scheduler's cache and queue (upstream's
 * eventhandlers.go):
 * - assigned pods (spec.nodeName set, any scheduler) → the cache; an added or
 *   changed one may help pending pods with affinity terms, a deleted one frees
 *   room (AssignedPodDelete);
 * - unassigned pods of our profiles (spec.schedulerName) → the queue; a pod
 *   that gets bound leaves the queue and enters the cache; a deleted pod that
 *   waits on Permit is rejected;
 * - nodes → the cache, and a queue move with the events the change amounts to
 *   (allocatable, labels, taints, conditions, annotations; spec.unschedulable
 *   counts as a taint change, as upstream).
 */
import { jsonEqual } from '../machinery/meta.js';
import type { HandlerRegistration, SharedIndexInformer } from '../client/cache/interfaces.js';
import type { Logger } from '../machinery/logger.js';
import type { SchedulerCache } from './cache/interface.js';
import { ActionType, type ClusterEvent } from './framework/cluster-event.js';
import type { WaitingPods } from './framework/waiting-pods.js';
import type { Node, Pod } from './framework/types.js';
import type { SchedulingQueue } from './queue/interface.js';

export const NODE_ADD: ClusterEvent = { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' };
export const NODE_DELETE: ClusterEvent = { resource: 'Node', actionType: ActionType.Delete, label: 'NodeDelete' };
export const ASSIGNED_POD_DELETE: ClusterEvent = { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' };
export const NODE_SPEC_UNSCHEDULABLE_CHANGE: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeTaint, label: 'NodeSpecUnschedulableChange' };
export const NODE_ALLOCATABLE_CHANGE: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeAllocatable, label: 'NodeAllocatableChange' };
export const NODE_LABEL_CHANGE: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeLabel, label: 'NodeLabelChange' };
export const NODE_TAINT_CHANGE: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeTaint, label: 'NodeTaintChange' };
export const NODE_CONDITION_CHANGE: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeCondition, label: 'NodeConditionChange' };
export const NODE_ANNOTATION_CHANGE: ClusterEvent = { resource: 'Node', actionType: ActionType.UpdateNodeAnnotation, label: 'NodeAnnotationChange' };

function conditionStatuses(node: Node): Map<string, string> {
  return new Map((node.status?.conditions ?? []).map((c) => [c.type, c.status]));
}

/** The scheduling-relevant changes of a node update, in upstream's order (nothing: none matters). */
export function nodeSchedulingPropertiesChange(newNode: Node, oldNode: Node): ClusterEvent[] {
  const events: ClusterEvent[] = [];
  if ((newNode.spec?.unschedulable ?? false) !== (oldNode.spec?.unschedulable ?? false)) events.push(NODE_SPEC_UNSCHEDULABLE_CHANGE);
  if (!jsonEqual(newNode.status?.allocatable ?? {}, oldNode.status?.allocatable ?? {})) events.push(NODE_ALLOCATABLE_CHANGE);
  if (!jsonEqual(newNode.metadata.labels ?? {}, oldNode.metadata.labels ?? {})) events.push(NODE_LABEL_CHANGE);
  if (!jsonEqual(newNode.spec?.taints ?? [], oldNode.spec?.taints ?? [])) events.push(NODE_TAINT_CHANGE);
  const oldConditions = conditionStatuses(oldNode);
  const newConditions = conditionStatuses(newNode);
  if (oldConditions.size !== newConditions.size || [...newConditions].some(([type, status]) => oldConditions.get(type) !== status)) events.push(NODE_CONDITION_CHANGE);
  if (!jsonEqual(newNode.metadata.annotations ?? {}, oldNode.metadata.annotations ?? {})) events.push(NODE_ANNOTATION_CHANGE);
  return events;
}

export const isAssigned = (pod: Pod): boolean => (pod.spec?.nodeName ?? '') !== '';

export interface EventHandlerOptions {
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: SharedIndexInformer<Node>;
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  /** Whether one of our profiles schedules this pod (by spec.schedulerName). */
  readonly responsibleFor: (pod: Pod) => boolean;
  readonly waitingPods: WaitingPods;
  readonly logger: Logger;
}

/** Wire the informers to the cache and queue; returns the registrations (remove them to stop). */
export function addAllEventHandlers(o: EventHandlerOptions): HandlerRegistration[] {
  const { cache, queue, logger } = o;
  const pending = (pod: Pod): boolean => !isAssigned(pod) && o.responsibleFor(pod);
  const guard = (what: string, run: () => void): void => {
    try {
      run();
    } catch (e: unknown) {
      logger.error({ err: e }, `Scheduler event handler failed: ${what}`);
    }
  };

  const addAssigned = (pod: Pod): void => {
    guard('add assigned pod', () => {
      cache.addPod(pod);
      queue.assignedPodAdded(pod);
    });
  };
  const deleteAssigned = (pod: Pod): void => {
    guard('delete assigned pod', () => {
      cache.removePod(pod);
      queue.moveAllToActiveOrBackoffQueue(ASSIGNED_POD_DELETE, pod, undefined);
    });
  };
  const addPending = (pod: Pod): void => guard('add pending pod', () => queue.add(pod));
  const deletePending = (pod: Pod): void => {
    guard('delete pending pod', () => {
      queue.delete(pod);
      // A pod waiting on Permit was assumed: rejecting it frees its room.
      if (o.waitingPods.reject(pod.metadata.uid ?? '', '', 'removed')) queue.moveAllToActiveOrBackoffQueue(ASSIGNED_POD_DELETE, pod, undefined);
    });
  };

  const podRegistration = o.pods.addEventHandler({
    onAdd: (pod) => {
      if (isAssigned(pod)) addAssigned(pod);
      else if (o.responsibleFor(pod)) addPending(pod);
    },
    onUpdate: (oldPod, newPod) => {
      const wasAssigned = isAssigned(oldPod);
      const assigned = isAssigned(newPod);
      if (wasAssigned && assigned) {
        guard('update assigned pod', () => {
          if (oldPod.metadata.uid !== newPod.metadata.uid) {
            cache.removePod(oldPod);
            cache.addPod(newPod);
          } else {
            cache.updatePod(oldPod, newPod);
          }
          queue.assignedPodUpdated(oldPod, newPod);
        });
        return;
      }
      if (!wasAssigned && assigned) {
        if (pending(oldPod)) guard('bound pod leaves the queue', () => queue.delete(oldPod));
        addAssigned(newPod);
        return;
      }
      if (wasAssigned && !assigned) {
        deleteAssigned(oldPod);
        if (pending(newPod)) addPending(newPod);
        return;
      }
      const was = pending(oldPod);
      const is = pending(newPod);
      if (was && is) {
        if (oldPod.metadata.resourceVersion === newPod.metadata.resourceVersion) return;
        guard('update pending pod', () => {
          if (cache.isAssumedPod(newPod)) return;
          queue.update(oldPod, newPod);
        });
      } else if (was) {
        deletePending(oldPod);
      } else if (is) {
        addPending(newPod);
      }
    },
    onDelete: (pod) => {
      if (isAssigned(pod)) deleteAssigned(pod);
      else if (o.responsibleFor(pod)) deletePending(pod);
    },
  });

  const nodeRegistration = o.nodes.addEventHandler({
    onAdd: (node) => {
      guard('add node', () => {
        cache.addNode(node);
        queue.moveAllToActiveOrBackoffQueue(NODE_ADD, undefined, node);
      });
    },
    onUpdate: (oldNode, newNode) => {
      guard('update node', () => {
        cache.updateNode(oldNode, newNode);
        for (const event of nodeSchedulingPropertiesChange(newNode, oldNode)) queue.moveAllToActiveOrBackoffQueue(event, oldNode, newNode);
      });
    },
    onDelete: (node) => {
      guard('delete node', () => {
        cache.removeNode(node);
        queue.moveAllToActiveOrBackoffQueue(NODE_DELETE, node, undefined);
      });
    },
  });
  logger.debug({ handlers: 2 }, 'Scheduler event handlers added');
  return [podRegistration, nodeRegistration];
}
