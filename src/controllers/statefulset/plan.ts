/**
 * What a StatefulSet's reconcile does next (upstream's updateStatefulSet in
 * stateful_set_control.go), pure over the cache's state.
 *
 * Pods with an ordinal in [start, start + replicas) are replicas; the others
 * are condemned. OrderedReady (monotonic) acts on one pod at a time and
 * stops at the first pod that is missing, terminating, or not Running and
 * Ready (and available): create in ordinal order, delete condemned pods from
 * the highest ordinal, and only when every replica is healthy. Parallel acts
 * on every pod at once. Then, under RollingUpdate, the pod with the highest
 * ordinal at or above the partition that is not at the update revision is
 * deleted (the next pass recreates it at the update revision), one at a time,
 * waiting for each to be healthy again; with rollingUpdate.maxUnavailable
 * (alpha upstream) up to that many at once. OnDelete never deletes for an
 * update.
 *
 * A failed or succeeded pod is deleted (a Warning RecreatingFailedPod /
 * Normal RecreatingTerminatedPod event) and created again on a later pass,
 * once its deletion has been observed.
 */
import type { StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import { isPodAvailable, isPodReady } from '../util/pod-readiness.js';
import { scaledValue } from '../daemonset/int-or-percent.js';
import type { ControllerRevisionObject } from '../history/controller-revision.js';
import { identityMatches, newVersionedStatefulSetPod, ordinalOf, podRevision, replicaCount, startOrdinal, storageMatches } from './identity.js';
import type { PodObject, StatefulSetObject } from './types.js';

export type StatefulSetAction =
  | { readonly kind: 'create'; readonly pod: PodObject }
  | { readonly kind: 'delete'; readonly pod: PodObject; readonly why: 'failed' | 'succeeded' | 'scale-down' | 'update' }
  /** The pod's identity or volumes drifted: write it back fixed. */
  | { readonly kind: 'fix-identity'; readonly pod: PodObject };

export interface PlannedEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface StatefulSetPlan {
  /** In order; under OrderedReady at most one create or delete, last. */
  readonly actions: StatefulSetAction[];
  readonly events: PlannedEvent[];
  /** The status the set has now (before the actions), with the rolling update completed when it is. */
  readonly status: StatefulSetStatus;
}

export interface PlanInput {
  readonly set: StatefulSetObject;
  /** The set as the current and the update revision make it. */
  readonly currentSet: StatefulSetObject;
  readonly updateSet: StatefulSetObject;
  readonly currentRevision: ControllerRevisionObject;
  readonly updateRevision: ControllerRevisionObject;
  readonly collisionCount: number;
  /** The pods the set owns whose names say they are its members. */
  readonly pods: readonly PodObject[];
  readonly now: Date;
}

const isTerminating = (pod: PodObject): boolean => !!pod.metadata.deletionTimestamp;
const isRunningAndReady = (pod: PodObject): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
const isHealthy = (pod: PodObject | undefined): boolean => pod !== undefined && isRunningAndReady(pod) && !isTerminating(pod);

/** Replica counts and revisions of the pods (upstream's computeReplicaStatus), then completeRollingUpdate. */
export function statefulSetStatus(input: PlanInput): StatefulSetStatus {
  const minReadySeconds = input.set.spec?.minReadySeconds ?? 0;
  const status: StatefulSetStatus = {
    observedGeneration: input.set.metadata.generation ?? 0,
    replicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    currentRevision: input.currentRevision.metadata.name ?? '',
    updateRevision: input.updateRevision.metadata.name ?? '',
    collisionCount: input.collisionCount,
  };
  const counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const pod of input.pods) {
    counts.replicas++;
    if (isRunningAndReady(pod)) {
      counts.readyReplicas++;
      if (isPodAvailable(pod, minReadySeconds, input.now)) counts.availableReplicas++;
    }
    if (!isTerminating(pod)) {
      const revision = podRevision(pod);
      if (revision === status.currentRevision) counts.currentReplicas++;
      if (revision === status.updateRevision) counts.updatedReplicas++;
    }
  }
  Object.assign(status, counts);
  if (
    input.set.spec?.updateStrategy?.type === 'RollingUpdate' &&
    counts.updatedReplicas === counts.replicas &&
    counts.readyReplicas === counts.replicas
  ) {
    status.currentReplicas = counts.updatedReplicas;
    status.currentRevision = status.updateRevision ?? '';
  }
  return status;
}

/** The status differs from what the set says (upstream's inconsistentStatus): worth a write. */
export function statusChanged(set: StatefulSetObject, status: StatefulSetStatus): boolean {
  const have = set.status;
  return (
    (status.observedGeneration ?? 0) > (have?.observedGeneration ?? 0) ||
    status.replicas !== (have?.replicas ?? 0) ||
    (status.currentReplicas ?? 0) !== (have?.currentReplicas ?? 0) ||
    (status.readyReplicas ?? 0) !== (have?.readyReplicas ?? 0) ||
    (status.updatedReplicas ?? 0) !== (have?.updatedReplicas ?? 0) ||
    (status.availableReplicas ?? 0) !== (have?.availableReplicas ?? 0) ||
    (status.currentRevision ?? '') !== (have?.currentRevision ?? '') ||
    (status.updateRevision ?? '') !== (have?.updateRevision ?? '') ||
    (status.collisionCount ?? 0) !== (have?.collisionCount ?? 0)
  );
}

export function planStatefulSet(input: PlanInput): StatefulSetPlan {
  const { set, now } = input;
  const actions: StatefulSetAction[] = [];
  const events: PlannedEvent[] = [];
  const status = statefulSetStatus(input);
  const plan = (): StatefulSetPlan => ({ actions, events, status });
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  const available = (pod: PodObject): boolean => isPodAvailable(pod, minReadySeconds, now);
  const updateRevision = input.updateRevision.metadata.name ?? '';

  const start = startOrdinal(set);
  const count = replicaCount(set);
  const replicas: (PodObject | undefined)[] = Array.from({ length: count }, () => undefined);
  const condemned: PodObject[] = [];
  for (const pod of input.pods) {
    const ordinal = ordinalOf(pod);
    if (ordinal >= start && ordinal < start + count) replicas[ordinal - start] = pod;
    else if (ordinal >= 0) condemned.push(pod);
  }
  condemned.sort((a, b) => ordinalOf(a) - ordinalOf(b));

  // The unhealthy pod with the lowest ordinal may be deleted by a scale-down even when unhealthy.
  let firstUnhealthy: PodObject | undefined;
  for (const pod of [...replicas, ...condemned]) {
    if (pod !== undefined && !isHealthy(pod) && (firstUnhealthy === undefined || ordinalOf(pod) < ordinalOf(firstUnhealthy))) firstUnhealthy = pod;
  }

  if (set.metadata.deletionTimestamp) return plan();
  const monotonic = set.spec?.podManagementPolicy !== 'Parallel';

  for (let i = 0; i < count; i++) {
    const pod = replicas[i];
    const ordinal = start + i;
    if (pod === undefined) {
      actions.push({
        kind: 'create',
        pod: newVersionedStatefulSetPod({
          currentSet: input.currentSet,
          updateSet: input.updateSet,
          currentRevision: input.currentRevision.metadata.name ?? '',
          updateRevision,
          ordinal,
        }),
      });
      if (monotonic) return plan();
      continue;
    }
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') {
      const failed = phase === 'Failed';
      events.push({
        type: failed ? 'Warning' : 'Normal',
        reason: failed ? 'RecreatingFailedPod' : 'RecreatingTerminatedPod',
        message: `StatefulSet ${set.metadata.namespace ?? ''}/${set.metadata.name ?? ''} is recreating ${failed ? 'failed' : 'terminated'} Pod ${pod.metadata.name ?? ''}`,
      });
      if (!isTerminating(pod)) actions.push({ kind: 'delete', pod, why: failed ? 'failed' : 'succeeded' });
      if (monotonic) return plan();
      continue;
    }
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !available(pod))) return plan();
    if (!identityMatches(set, pod) || !storageMatches(set, pod)) actions.push({ kind: 'fix-identity', pod });
  }

  // Scale down: highest ordinal first.
  for (let target = condemned.length - 1; target >= 0; target--) {
    const pod = condemned[target]!;
    if (isTerminating(pod)) {
      if (monotonic) return plan();
      continue;
    }
    if (monotonic && pod !== firstUnhealthy && (!isRunningAndReady(pod) || !available(pod))) return plan();
    actions.push({ kind: 'delete', pod, why: 'scale-down' });
    if (monotonic) return plan();
  }

  const strategy = set.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return plan();
  const partition = Math.max(0, strategy?.rollingUpdate?.partition ?? 0);
  const outdated = (pod: PodObject | undefined): pod is PodObject => pod !== undefined && podRevision(pod) !== updateRevision && !isTerminating(pod);

  if (strategy?.rollingUpdate?.maxUnavailable !== undefined) {
    const maxUnavailable = Math.max(1, scaledValue(strategy.rollingUpdate.maxUnavailable, count, false));
    const unavailable = replicas.filter((pod) => !isHealthy(pod) || !available(pod!)).length;
    let budget = maxUnavailable - unavailable;
    for (let target = count - 1; target >= partition && budget > 0; target--) {
      const pod = replicas[target];
      if (outdated(pod)) {
        actions.push({ kind: 'delete', pod, why: 'update' });
        budget--;
      }
    }
    return plan();
  }

  for (let target = count - 1; target >= partition; target--) {
    const pod = replicas[target];
    if (outdated(pod)) {
      actions.push({ kind: 'delete', pod, why: 'update' });
      return plan();
    }
    if (!isHealthy(pod)) return plan();
  }
  return plan();
}
