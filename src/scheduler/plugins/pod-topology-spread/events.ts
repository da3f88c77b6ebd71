/**
 * The cluster events that can make a pod PodTopologySpread rejected
 * schedulable, with upstream's queueing hints (QueueingHints enabled):
 * assigned pods of the pod's namespace added, relabelled or deleted when a
 * constraint's selector cares; the pod itself getting new tolerations when a
 * constraint honours taints, or new labels that change whether it matches a
 * selector; nodes added, deleted, relabelled or retainted
 * when they carry the constraints' topology keys.
 */
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { Node, Pod } from '../../framework/types.js';
import { semanticDeepEqual } from '../../../machinery/validation/immutable.js';
import { nodeLabelsMatchSpreadConstraints, podLabelsMatchSpreadConstraints, type SpreadConstraint } from './constraints.js';

/** The pod's DoNotSchedule constraints (its own, or the defaults); throws when they do not parse. */
export type ConstraintsOf = (pod: Pod) => SpreadConstraint[];

function involvedInTopologySpreading(changed: Pod, podWithSpreading: Pod): boolean {
  if ((changed.metadata.uid ?? '') === (podWithSpreading.metadata.uid ?? '')) return true;
  return (changed.spec?.nodeName ?? '') !== '' && (changed.metadata.namespace ?? '') === (podWithSpreading.metadata.namespace ?? '');
}

function asObject<T>(object: unknown): T | undefined {
  return object === undefined || object === null ? undefined : (object as T);
}

function constraintsOrUndefined(constraintsOf: ConstraintsOf, pod: Pod): SpreadConstraint[] | undefined {
  try {
    return constraintsOf(pod);
  } catch {
    return undefined;
  }
}

export function podChangeHint(constraintsOf: ConstraintsOf): (pod: Pod, oldObject: unknown, newObject: unknown) => QueueingHint {
  return (pod, oldObject, newObject) => {
    const original = asObject<Pod>(oldObject);
    const modified = asObject<Pod>(newObject);
    if ((modified !== undefined && !involvedInTopologySpreading(modified, pod)) || (original !== undefined && !involvedInTopologySpreading(original, pod))) {
      return QueueingHint.Skip;
    }
    const constraints = constraintsOrUndefined(constraintsOf, pod);
    if (constraints === undefined) return QueueingHint.Queue;
    if (original !== undefined && modified !== undefined) {
      if (
        (pod.metadata.uid ?? '') === (modified.metadata.uid ?? '') &&
        !semanticDeepEqual(modified.spec?.tolerations, original.spec?.tolerations) &&
        constraints.some((c) => c.nodeTaintsPolicy === 'Honor')
      ) {
        return QueueingHint.Queue;
      }
      if (semanticDeepEqual(modified.metadata.labels, original.metadata.labels)) return QueueingHint.Skip;
      for (const c of constraints) {
        if (c.matches(original.metadata.labels) !== c.matches(modified.metadata.labels)) return QueueingHint.Queue;
      }
      return QueueingHint.Skip;
    }
    const changed = modified ?? original;
    if (changed === undefined) return QueueingHint.Queue;
    return podLabelsMatchSpreadConstraints(constraints, changed.metadata.labels) ? QueueingHint.Queue : QueueingHint.Skip;
  };
}

function topologyKeyLabelsChanged(before: Node, after: Node, constraints: readonly SpreadConstraint[]): boolean {
  return constraints.some((c) => (before.metadata.labels?.[c.topologyKey] ?? '') !== (after.metadata.labels?.[c.topologyKey] ?? ''));
}

export function nodeChangeHint(constraintsOf: ConstraintsOf): (pod: Pod, oldObject: unknown, newObject: unknown) => QueueingHint {
  return (pod, oldObject, newObject) => {
    const original = asObject<Node>(oldObject);
    const modified = asObject<Node>(newObject);
    const constraints = constraintsOrUndefined(constraintsOf, pod);
    if (constraints === undefined) return QueueingHint.Queue;
    const originalMatching = original !== undefined && nodeLabelsMatchSpreadConstraints(original.metadata.labels, constraints);
    const modifiedMatching = modified !== undefined && nodeLabelsMatchSpreadConstraints(modified.metadata.labels, constraints);
    if (original !== undefined && modified !== undefined) {
      if (originalMatching !== modifiedMatching) return QueueingHint.Queue;
      if (modifiedMatching && (topologyKeyLabelsChanged(original, modified, constraints) || !semanticDeepEqual(original.spec?.taints, modified.spec?.taints))) {
        return QueueingHint.Queue;
      }
      return QueueingHint.Skip;
    }
    if (modified !== undefined) return modifiedMatching ? QueueingHint.Queue : QueueingHint.Skip;
    return originalMatching ? QueueingHint.Queue : QueueingHint.Skip;
  };
}

export function podTopologySpreadEvents(constraintsOf: ConstraintsOf): ClusterEventWithHint[] {
  const podHint = podChangeHint(constraintsOf);
  return [
    { event: { resource: 'Pod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete, label: 'AssignedPodChange' }, hint: podHint },
    // Upstream's Pod registration also covers the pending pod's own updates: new tolerations, or labels that change whether it matches itself.
    { event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodLabel | ActionType.UpdatePodTolerations, label: 'UnscheduledPodUpdate' }, hint: podHint },
    {
      event: { resource: 'Node', actionType: ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint, label: 'NodeChange' },
      hint: nodeChangeHint(constraintsOf),
    },
  ];
}
