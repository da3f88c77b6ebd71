/**
 * The API calls of preemption (upstream's Evaluator.PreemptPod and
 * clearNominatedNodeName): mark a victim with the DisruptionTarget condition,
 * delete it, record a Preempted event on it; and take the nomination away
 * from lower-priority pods nominated to the chosen node.
 */
import type { PodCondition } from 'kubernetes-types/core/v1.js';
import { PODS } from '../../../client/rest/resources.js';
import { formatTime } from '../../../machinery/meta.js';
import { isNotFound } from '../../../machinery/status.js';
import type { Handle } from '../interfaces.js';
import type { Pod } from '../types.js';

export const DISRUPTION_TARGET = 'DisruptionTarget';
export const PREEMPTION_BY_SCHEDULER = 'PreemptionByScheduler';
const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export interface PreemptPodRequest {
  readonly handle: Handle;
  readonly pluginName: string;
  readonly preemptor: Pod;
  readonly victim: Pod;
  readonly nodeName: string;
  /** The clock for lastTransitionTime (default: the real one). */
  readonly now?: () => Date;
}

/** The condition put on a victim before it is deleted. */
export function disruptionTargetCondition(preemptor: Pod, now: Date): PodCondition {
  const schedulerName = preemptor.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME;
  return {
    type: DISRUPTION_TARGET,
    status: 'True',
    reason: PREEMPTION_BY_SCHEDULER,
    message: `${schedulerName}: preempting to accommodate a higher priority pod`,
    lastTransitionTime: formatTime(now),
  };
}

/** Whether the pod already carries the condition as given (then no status write is needed). */
function hasCondition(pod: Pod, condition: PodCondition): boolean {
  const existing = pod.status?.conditions?.find((c) => c.type === condition.type);
  return existing !== undefined && existing.status === condition.status && existing.reason === condition.reason && existing.message === condition.message;
}

/**
 * Preempt one victim. A victim waiting at Permit is rejected instead of
 * deleted. A victim already gone is not an error (and gets no event).
 * Rejects with the API error otherwise.
 */
export async function preemptPod(request: PreemptPodRequest): Promise<void> {
  const { handle, pluginName, preemptor, victim, nodeName } = request;
  const uid = victim.metadata.uid ?? '';
  const waiting = uid === '' ? undefined : handle.getWaitingPod(uid);
  if (waiting !== undefined) {
    waiting.reject(pluginName, 'preempted');
    handle.logger.debug({ preemptor: name(preemptor), waitingPod: name(victim), node: nodeName }, 'Preemptor pod preempted a waiting pod');
  } else {
    const pods = handle.client.resource<Pod>(PODS);
    const namespace = victim.metadata.namespace ?? '';
    const victimName = victim.metadata.name ?? '';
    const condition = disruptionTargetCondition(preemptor, (request.now ?? (() => new Date()))());
    if (!hasCondition(victim, condition)) {
      try {
        await pods.patch(victimName, 'strategic', { status: { conditions: [condition] } }, { namespace, subresource: 'status' });
      } catch (e: unknown) {
        if (!isNotFound(e)) throw e;
        handle.logger.debug({ preemptor: name(preemptor), victim: name(victim), node: nodeName }, 'Victim Pod is already deleted');
        return;
      }
    }
    try {
      await pods.delete(victimName, { namespace });
    } catch (e: unknown) {
      if (!isNotFound(e)) throw e;
      handle.logger.debug({ preemptor: name(preemptor), victim: name(victim), node: nodeName }, 'Victim Pod is already deleted');
      return;
    }
    handle.logger.debug({ preemptor: name(preemptor), victim: name(victim), node: nodeName }, 'Preemptor Pod preempted victim Pod');
  }
  handle.events.event(victim, 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata.uid ?? ''} on node ${nodeName}`);
}

/**
 * Set status.nominatedNodeName to '' on each pod that has one. Every pod is
 * tried; the errors are returned (the caller only logs them).
 */
export async function clearNominatedNodeName(handle: Handle, pods: readonly Pod[]): Promise<unknown[]> {
  const client = handle.client.resource<Pod>(PODS);
  const errors: unknown[] = [];
  for (const pod of pods) {
    if ((pod.status?.nominatedNodeName ?? '') === '') continue;
    try {
      await client.patch(pod.metadata.name ?? '', 'strategic', { status: { nominatedNodeName: null } }, { namespace: pod.metadata.namespace ?? '', subresource: 'status' });
    } catch (e: unknown) {
      errors.push(e);
    }
  }
  return errors;
}

function name(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}
