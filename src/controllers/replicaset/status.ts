/**
 * A ReplicaSet's status from its active, owned pods (upstream's
 * calculateStatus): replicas, fullyLabeledReplicas (pods that carry every
 * label of the template), readyReplicas, availableReplicas (ready for
 * minReadySeconds), and the ReplicaFailure condition, set when creating or
 * deleting pods failed and removed once it works again.
 */
import type { ReplicaSetCondition, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import { formatTime, jsonEqual } from '../../machinery/meta.js';
import { labelSelectorFromSet } from '../../machinery/selectors/label-selector.js';
import { isPodAvailable, isPodReady } from '../util/pod-readiness.js';
import type { PodObject, ReplicaSetObject } from '../util/types.js';

export const REPLICA_FAILURE = 'ReplicaFailure';

export function computeReplicaSetStatus(rs: ReplicaSetObject, pods: readonly PodObject[], manageError: unknown, now: Date): ReplicaSetStatus {
  const status: ReplicaSetStatus = { ...(rs.status ?? { replicas: 0 }) };
  if (rs.status?.conditions) status.conditions = rs.status.conditions.map((c) => ({ ...c }));
  const templateLabels = labelSelectorFromSet(rs.spec?.template?.metadata?.labels ?? {});
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (templateLabels.matches(pod.metadata.labels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
    }
  }
  const failure = status.conditions?.find((c) => c.type === REPLICA_FAILURE);
  if (manageError !== undefined && failure === undefined) {
    const diff = pods.length - (rs.spec?.replicas ?? 1);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const condition: ReplicaSetCondition = {
      type: REPLICA_FAILURE,
      status: 'True',
      lastTransitionTime: formatTime(now),
      reason,
      message: manageError instanceof Error ? manageError.message : String(manageError),
    };
    status.conditions = [...(status.conditions ?? []), condition];
  } else if (manageError === undefined && failure !== undefined) {
    const rest = (status.conditions ?? []).filter((c) => c.type !== REPLICA_FAILURE);
    if (rest.length === 0) delete status.conditions;
    else status.conditions = rest;
  }
  status.replicas = pods.length;
  status.fullyLabeledReplicas = fullyLabeled;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  return status;
}

/** Whether writing `next` would change anything (upstream compares the counts, the observed generation and the conditions). */
export function replicaSetStatusChanged(rs: ReplicaSetObject, next: ReplicaSetStatus): boolean {
  const current = rs.status ?? { replicas: 0 };
  return (
    (current.replicas ?? 0) !== next.replicas ||
    (current.fullyLabeledReplicas ?? 0) !== (next.fullyLabeledReplicas ?? 0) ||
    (current.readyReplicas ?? 0) !== (next.readyReplicas ?? 0) ||
    (current.availableReplicas ?? 0) !== (next.availableReplicas ?? 0) ||
    (rs.metadata.generation ?? 0) !== (current.observedGeneration ?? 0) ||
    !jsonEqual(current.conditions ?? [], next.conditions ?? [])
  );
}
