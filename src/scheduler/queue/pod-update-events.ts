/**
 * The cluster events an update of a pod amounts to (upstream's
 * framework.PodSchedulingPropertiesChange): one event per kind of change that
 * matters to scheduling (labels, scale-down of requests, scheduling gates
 * eliminated, tolerations added), or a single UpdateOther when none does. The
 * resource is `UnscheduledPod` for a pending pod and `Pod` for an assigned one.
 */
import { ActionType, type ClusterEvent, type EventResource } from '../framework/cluster-event.js';
import { computePodRequests, type Resource } from '../framework/resource.js';
import type { Pod } from '../framework/types.js';

const ACTION_LABELS: ReadonlyArray<readonly [number, string]> = [
  [ActionType.UpdatePodLabel, 'UpdatePodLabel'],
  [ActionType.UpdatePodScaleDown, 'UpdatePodScaleDown'],
  [ActionType.UpdatePodSchedulingGatesEliminated, 'UpdatePodSchedulingGatesEliminated'],
  [ActionType.UpdatePodTolerations, 'UpdatePodToleration'],
  [ActionType.UpdateOther, 'UpdatePodOther'],
];

function labelOf(resource: EventResource, action: number): string {
  const prefix = resource === 'UnscheduledPod' ? 'UnschedulablePod' : 'AssignedPod';
  const name = ACTION_LABELS.find(([flag]) => flag === action)?.[1] ?? 'Update';
  return `${prefix}${name}`;
}

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => b?.[k] === a?.[k]);
}

/** Whether some resource of `older` is requested less (or not at all) in `newer`. */
function scaledDown(older: Resource, newer: Resource): boolean {
  if (newer.milliCPU < older.milliCPU || newer.memory < older.memory || newer.ephemeralStorage < older.ephemeralStorage) return true;
  for (const [name, value] of older.scalar) if ((newer.scalar.get(name) ?? 0) < value || !newer.scalar.has(name)) return true;
  return false;
}

/** The ActionType flags of the change, in upstream's order; empty when nothing scheduling-relevant changed. */
export function podUpdateActions(oldPod: Pod, newPod: Pod): number[] {
  const actions: number[] = [];
  if (!sameLabels(oldPod.metadata.labels, newPod.metadata.labels)) actions.push(ActionType.UpdatePodLabel);
  if (scaledDown(computePodRequests(oldPod), computePodRequests(newPod))) actions.push(ActionType.UpdatePodScaleDown);
  if ((newPod.spec?.schedulingGates ?? []).length === 0 && (oldPod.spec?.schedulingGates ?? []).length !== 0) {
    actions.push(ActionType.UpdatePodSchedulingGatesEliminated);
  }
  // Validation lets tolerations be added, never changed or removed: the count tells.
  if ((newPod.spec?.tolerations ?? []).length !== (oldPod.spec?.tolerations ?? []).length) actions.push(ActionType.UpdatePodTolerations);
  return actions;
}

/** The events of a pod update (at least one); the resource follows newPod.spec.nodeName unless given. */
export function podUpdateEvents(oldPod: Pod, newPod: Pod, resource: EventResource = (newPod.spec?.nodeName ?? '') === '' ? 'UnscheduledPod' : 'Pod'): ClusterEvent[] {
  const actions = podUpdateActions(oldPod, newPod);
  if (actions.length === 0) actions.push(ActionType.UpdateOther);
  return actions.map((actionType) => ({ resource, actionType, label: labelOf(resource, actionType) }));
}
