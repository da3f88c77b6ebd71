/**
 * A Deployment's status from its ReplicaSets (upstream's calculateStatus and
 * syncRolloutStatus): the replica counts, the Available condition (at least
 * replicas − maxUnavailable available), and, when a progress deadline is set,
 * the Progressing condition: NewReplicaSetAvailable once complete,
 * ReplicaSetUpdated on any progress (lastUpdateTime moves, the deadline
 * restarts), ProgressDeadlineExceeded once the deadline passes without
 * progress. ReplicaSet failures are mirrored as ReplicaFailure.
 */
import type { DeploymentCondition, DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import { deepCopy } from '../../machinery/meta.js';
import type { DeploymentObject, ReplicaSetObject } from '../util/types.js';
import { AVAILABLE, getCondition, newCondition, PROGRESSING, REASON, removeCondition, REPLICA_FAILURE, setCondition } from './conditions.js';
import { desiredReplicas, maxUnavailable } from './intstr.js';
import { sumAvailableReplicas, sumReadyReplicas, sumSpecReplicas, sumStatusReplicas } from './replica-sets.js';

/** progressDeadlineSeconds is set and not MaxInt32 (upstream's "no deadline"). */
export function hasProgressDeadline(d: DeploymentObject): boolean {
  const seconds = d.spec?.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== 2147483647;
}

/** The counts and the Available condition (upstream's calculateStatus). */
export function computeDeploymentStatus(d: DeploymentObject, allRSs: readonly ReplicaSetObject[], newRS: ReplicaSetObject | undefined, now: Date): DeploymentStatus {
  const available = sumAvailableReplicas(allRSs);
  const total = sumSpecReplicas(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: sumStatusReplicas(allRSs),
    updatedReplicas: sumStatusReplicas(newRS === undefined ? [] : [newRS]),
    readyReplicas: sumReadyReplicas(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions !== undefined) status.conditions = deepCopy(d.status.conditions);
  if (available >= desiredReplicas(d) - maxUnavailable(d)) {
    setCondition(status, newCondition(AVAILABLE, 'True', REASON.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition(AVAILABLE, 'False', REASON.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** Every replica is updated, exists and is available, for the current generation (upstream's DeploymentComplete). */
export function isDeploymentComplete(d: DeploymentObject, status: DeploymentStatus): boolean {
  const replicas = desiredReplicas(d);
  return (status.updatedReplicas ?? 0) === replicas && (status.replicas ?? 0) === replicas && (status.availableReplicas ?? 0) === replicas && (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** Something moved since the last status (upstream's DeploymentProgressing). */
export function isDeploymentProgressing(d: DeploymentObject, next: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** The Progressing condition's lastUpdateTime + progressDeadlineSeconds has passed (upstream's DeploymentTimedOut). */
export function isDeploymentTimedOut(d: DeploymentObject, status: DeploymentStatus, now: Date): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = getCondition(status, PROGRESSING);
  if (condition === undefined || condition.reason === REASON.newReplicaSetAvailable) return false;
  if (condition.reason === REASON.timedOut) return true;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return false;
  return from + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < now.getTime();
}

function replicaFailure(allRSs: readonly ReplicaSetObject[], newRS: ReplicaSetObject | undefined): DeploymentCondition | undefined {
  const ordered = newRS === undefined ? allRSs : [newRS, ...allRSs.filter((rs) => rs !== newRS)];
  for (const rs of ordered) {
    const c = rs.status?.conditions?.find((x) => x.type === REPLICA_FAILURE);
    if (c === undefined) continue;
    const condition: DeploymentCondition = { type: REPLICA_FAILURE, status: c.status };
    if (c.lastTransitionTime !== undefined) {
      condition.lastUpdateTime = c.lastTransitionTime;
      condition.lastTransitionTime = c.lastTransitionTime;
    }
    if (c.reason !== undefined) condition.reason = c.reason;
    if (c.message !== undefined) condition.message = c.message;
    return condition;
  }
  return undefined;
}

/** The status a rollout sync writes (upstream's syncRolloutStatus, without the write). */
export function computeRolloutStatus(d: DeploymentObject, allRSs: readonly ReplicaSetObject[], newRS: ReplicaSetObject | undefined, now: Date): DeploymentStatus {
  const status = computeDeploymentStatus(d, allRSs, newRS, now);
  if (!hasProgressDeadline(d)) removeCondition(status, PROGRESSING);
  const current = getCondition(d.status, PROGRESSING);
  const complete = status.replicas === status.updatedReplicas && current?.reason === REASON.newReplicaSetAvailable;
  if (hasProgressDeadline(d) && !complete) {
    const name = d.metadata.name ?? '';
    if (isDeploymentComplete(d, status)) {
      const message = newRS !== undefined ? `ReplicaSet "${newRS.metadata.name ?? ''}" has successfully progressed.` : `Deployment "${name}" has successfully progressed.`;
      setCondition(status, newCondition(PROGRESSING, 'True', REASON.newReplicaSetAvailable, message, now));
    } else if (isDeploymentProgressing(d, status)) {
      const message = newRS !== undefined ? `ReplicaSet "${newRS.metadata.name ?? ''}" is progressing.` : `Deployment "${name}" is progressing.`;
      const condition = newCondition(PROGRESSING, 'True', REASON.replicaSetUpdated, message, now);
      if (current !== undefined) {
        if (current.status === 'True' && current.lastTransitionTime !== undefined) condition.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, PROGRESSING);
      }
      setCondition(status, condition);
    } else if (isDeploymentTimedOut(d, status, now)) {
      const message = newRS !== undefined ? `ReplicaSet "${newRS.metadata.name ?? ''}" has timed out progressing.` : `Deployment "${name}" has timed out progressing.`;
      setCondition(status, newCondition(PROGRESSING, 'False', REASON.timedOut, message, now));
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  if (failure !== undefined) setCondition(status, failure);
  else removeCondition(status, REPLICA_FAILURE);
  return status;
}

/**
 * When to look again at a rollout that made no progress, to notice its
 * deadline passing (upstream's requeueStuckDeployment): undefined when there
 * is no deadline to watch; otherwise milliseconds (0: at once, with backoff).
 */
export function stuckRequeueMs(d: DeploymentObject, next: DeploymentStatus, now: Date): number | undefined {
  const current = getCondition(d.status, PROGRESSING);
  if (!hasProgressDeadline(d) || current === undefined) return undefined;
  if (isDeploymentComplete(d, next) || current.reason === REASON.timedOut) return undefined;
  const from = Date.parse(current.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return undefined;
  const after = from + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 - now.getTime();
  return after < 1000 ? 0 : after + 1000;
}
