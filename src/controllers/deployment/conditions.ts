/**
 * The Deployment's conditions with upstream's types, reasons and messages,
 * and upstream's rule for setting one: the same status and reason change
 * nothing; the same status keeps lastTransitionTime; a changed condition
 * moves to the end of the list.
 */
import type { DeploymentCondition, DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import { formatTime } from '../../machinery/meta.js';

export const PROGRESSING = 'Progressing';
export const AVAILABLE = 'Available';
export const REPLICA_FAILURE = 'ReplicaFailure';

export const REASON = {
  /** Progressing: a new ReplicaSet was created. */
  newReplicaSet: 'NewReplicaSetCreated',
  /** Progressing: the new ReplicaSet already existed. */
  foundNewReplicaSet: 'FoundNewReplicaSet',
  /** Progressing: the rollout made progress. */
  replicaSetUpdated: 'ReplicaSetUpdated',
  /** Progressing: the new ReplicaSet is complete. */
  newReplicaSetAvailable: 'NewReplicaSetAvailable',
  /** Progressing False: no progress within progressDeadlineSeconds. */
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  /** Progressing False: the new ReplicaSet could not be created. */
  failedReplicaSetCreate: 'ReplicaSetCreateError',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

export function newCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: Date): DeploymentCondition {
  const time = formatTime(now);
  return { type, status, lastUpdateTime: time, lastTransitionTime: time, reason, message };
}

export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current !== undefined && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current !== undefined && current.status === condition.status && current.lastTransitionTime !== undefined) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (status.conditions === undefined) return;
  const rest = status.conditions.filter((c) => c.type !== type);
  if (rest.length === 0) delete status.conditions;
  else status.conditions = rest;
}
