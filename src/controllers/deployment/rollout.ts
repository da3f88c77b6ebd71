/**
 * One sync of one Deployment, as upstream's deployment controller does it
 * (sync.go, rolling.go, recreate.go, progress.go): find or create the new
 * ReplicaSet and keep revisions in step, scale (proportionally when a rolling
 * Deployment is resized mid-rollout), roll (RollingUpdate within maxSurge and
 * maxUnavailable, or Recreate), clean up old ReplicaSets past
 * revisionHistoryLimit, and write the status with its conditions.
 *
 * Every write goes through the API server; the lists passed around are the
 * caller's copies, and each written object replaces its stale copy, so one
 * sync never writes on top of its own earlier write with an old
 * resourceVersion.
 */
import type { LabelSelector as LabelSelectorObject } from 'kubernetes-types/meta/v1.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { ResourceClient } from '../../client/rest/interface.js';
import { deepCopy, jsonEqual } from '../../machinery/meta.js';
import { isAlreadyExists, StatusError } from '../../machinery/status.js';
import { controllerRefOf, newControllerRef } from '../util/pod-control.js';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../util/types.js';
import { maxRevision, POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION, replicasAnnotationsNeedUpdate, setNewReplicaSetAnnotations, setReplicasAnnotations, desiredReplicasAnnotation } from './annotations.js';
import { getCondition, newCondition, PROGRESSING, REASON, setCondition } from './conditions.js';
import { computeTemplateHash } from './hash.js';
import { desiredReplicas, isRollingUpdate, maxSurge, maxUnavailable } from './intstr.js';
import {
  activeReplicaSets,
  availableReplicas,
  byCreation,
  byRevision,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  isSaturated,
  newReplicaSetReplicas,
  proportionalSizes,
  specReplicas,
  sumAvailableReplicas,
  sumSpecReplicas,
  sumStatusReplicas,
} from './replica-sets.js';
import { computeDeploymentStatus, computeRolloutStatus, hasProgressDeadline, isDeploymentComplete, stuckRequeueMs } from './status.js';

const DEPLOYMENT_GVK = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

export interface RolloutDeps {
  readonly deployments: ResourceClient<DeploymentObject>;
  readonly replicaSets: ResourceClient<ReplicaSetObject>;
  readonly recorder: EventRecorder;
  readonly now: () => Date;
  /** The cached ReplicaSet of that key, if any (to tell our own AlreadyExists from a hash collision). */
  readonly cachedReplicaSet: (namespace: string, name: string) => ReplicaSetObject | undefined;
  /** The pods each ReplicaSet owns (for Recreate: no new pods while old ones run). */
  readonly podsOf: (rs: ReplicaSetObject) => readonly PodObject[];
}

export interface RolloutResult {
  /** Sync again after this long (a progress deadline to notice). */
  readonly requeueAfterMs?: number;
}

/** Everything one sync works on: the Deployment (our copy) and its claimed ReplicaSets (our copies). */
interface State {
  d: DeploymentObject;
  rsList: ReplicaSetObject[];
}

export class DeploymentRollout {
  constructor(private readonly deps: RolloutDeps) {}

  /** The whole sync after claiming (upstream's syncDeployment from the deletion check on). */
  async sync(d: DeploymentObject, rsList: ReplicaSetObject[]): Promise<RolloutResult> {
    const state: State = { d, rsList };
    if (d.metadata.deletionTimestamp) {
      await this.syncStatusOnly(state);
      return {};
    }
    await this.checkPausedConditions(state);
    if (d.spec?.paused || (await this.isScalingEvent(state))) {
      await this.syncScale(state);
      return {};
    }
    return d.spec?.strategy?.type === 'Recreate' ? this.rolloutRecreate(state) : this.rolloutRolling(state);
  }

  // ---- writes that keep our copies current

  private replace(state: State, updated: ReplicaSetObject): ReplicaSetObject {
    const i = state.rsList.findIndex((rs) => rs.metadata.uid === updated.metadata.uid);
    if (i >= 0) state.rsList[i] = updated;
    else state.rsList.push(updated);
    return updated;
  }

  private async updateStatus(state: State): Promise<void> {
    const written = await this.deps.deployments.updateStatus(state.d);
    if (written.metadata.resourceVersion !== undefined) state.d.metadata.resourceVersion = written.metadata.resourceVersion;
  }

  /** The Deployment's revision annotation, written with its status as upstream does (its /status keeps annotations). */
  private async setDeploymentRevision(state: State, revision: string): Promise<void> {
    if (revision === '' || state.d.metadata.annotations?.[REVISION_ANNOTATION] === revision) return;
    state.d.metadata.annotations = { ...state.d.metadata.annotations, [REVISION_ANNOTATION]: revision };
    await this.updateStatus(state);
  }

  // ---- the new ReplicaSet and revisions (upstream's getAllReplicaSetsAndSyncRevision / getNewReplicaSet)

  private async newAndOld(state: State, createIfMissing: boolean): Promise<{ newRS: ReplicaSetObject | undefined; oldRSs: ReplicaSetObject[] }> {
    const oldRSs = findOldReplicaSets(state.d, state.rsList);
    const newRS = await this.getNewReplicaSet(state, oldRSs, createIfMissing);
    return { newRS, oldRSs: newRS === undefined ? findOldReplicaSets(state.d, state.rsList) : state.rsList.filter((rs) => rs.metadata.uid !== newRS.metadata.uid) };
  }

  private async getNewReplicaSet(state: State, oldRSs: readonly ReplicaSetObject[], createIfMissing: boolean): Promise<ReplicaSetObject | undefined> {
    const { d } = state;
    const existing = findNewReplicaSet(d, state.rsList);
    const newRevision = maxRevision([...oldRSs]) + 1;
    const replicas = desiredReplicas(d);
    if (existing !== undefined) {
      const copy = deepCopy(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations({ deploymentAnnotations: d.metadata.annotations, rs: copy, newRevision, exists: true, desired: replicas, max: replicas + maxSurge(d) });
      const minReadySeconds = d.spec?.minReadySeconds ?? 0;
      if (annotationsUpdated || (copy.spec?.minReadySeconds ?? 0) !== minReadySeconds) {
        if (copy.spec !== undefined) copy.spec.minReadySeconds = minReadySeconds;
        return this.replace(state, await this.deps.replicaSets.update(copy));
      }
      await this.setDeploymentRevision(state, copy.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
      if (hasProgressDeadline(d) && getCondition(d.status, PROGRESSING) === undefined) {
        d.status ??= {};
        setCondition(d.status, newCondition(PROGRESSING, 'True', REASON.foundNewReplicaSet, `Found new replica set "${copy.metadata.name ?? ''}"`, this.deps.now()));
        await this.updateStatus(state);
      }
      return copy;
    }
    if (!createIfMissing) return undefined;

    const template = deepCopy(d.spec?.template ?? {});
    const hash = computeTemplateHash(d.spec?.template ?? {}, d.status?.collisionCount);
    const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    template.metadata = { ...template.metadata, labels };
    const selector: LabelSelectorObject = deepCopy(d.spec?.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    const name = `${d.metadata.name ?? ''}-${hash}`;
    const newRS: ReplicaSetObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: d.metadata.namespace ?? '', ownerReferences: [newControllerRef(d, DEPLOYMENT_GVK)], labels: { ...labels } },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const count = newReplicaSetReplicas(d, [...oldRSs, newRS], newRS);
    if (newRS.spec !== undefined) newRS.spec.replicas = count;
    setNewReplicaSetAnnotations({ deploymentAnnotations: d.metadata.annotations, rs: newRS, newRevision, exists: false, desired: replicas, max: replicas + maxSurge(d) });

    let created: ReplicaSetObject;
    let alreadyExisted = false;
    try {
      created = await this.deps.replicaSets.create(newRS, { namespace: d.metadata.namespace ?? '' });
    } catch (e: unknown) {
      if (isAlreadyExists(e)) {
        const found = this.deps.cachedReplicaSet(d.metadata.namespace ?? '', name) ?? (await this.deps.replicaSets.get(name, { namespace: d.metadata.namespace ?? '' }));
        if (controllerRefOf(found)?.uid === d.metadata.uid && equalIgnoreHash(d.spec?.template, found.spec?.template)) {
          created = found;
          alreadyExisted = true;
        } else {
          // A hash collision: a different template already owns the name. Count it, so the next hash differs.
          d.status ??= {};
          d.status.collisionCount = (d.status.collisionCount ?? 0) + 1;
          await this.updateStatus(state);
          throw e;
        }
      } else if (isNamespaceTerminating(e)) {
        throw e;
      } else {
        const message = `Failed to create new replica set "${name}": ${e instanceof Error ? e.message : String(e)}`;
        if (hasProgressDeadline(d)) {
          d.status ??= {};
          setCondition(d.status, newCondition(PROGRESSING, 'False', REASON.failedReplicaSetCreate, message, this.deps.now()));
          await this.updateStatus(state).catch(() => undefined);
        }
        this.deps.recorder.event(d, 'Warning', REASON.failedReplicaSetCreate, message);
        throw e;
      }
    }
    this.replace(state, created);
    if (!alreadyExisted && count > 0) {
      this.deps.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name ?? ''} from 0 to ${count}`);
    }
    await this.setDeploymentRevision(state, String(newRevision));
    if (!alreadyExisted && hasProgressDeadline(d)) {
      d.status ??= {};
      setCondition(d.status, newCondition(PROGRESSING, 'True', REASON.newReplicaSet, `Created new replica set "${created.metadata.name ?? ''}"`, this.deps.now()));
      await this.updateStatus(state);
    }
    return created;
  }

  // ---- scaling

  /** Resize a ReplicaSet (and its replicas annotations); records ScalingReplicaSet when the size changed. */
  private async scaleReplicaSet(state: State, rs: ReplicaSetObject, size: number, direction: string): Promise<{ scaled: boolean; rs: ReplicaSetObject }> {
    const { d } = state;
    const desired = desiredReplicas(d);
    const max = desired + maxSurge(d);
    const sizeChanged = specReplicas(rs) !== size;
    if (!sizeChanged && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
    const from = specReplicas(rs);
    const copy = deepCopy(rs);
    copy.spec = { ...(copy.spec ?? { selector: {} }), replicas: size };
    setReplicasAnnotations(copy, desired, max);
    const updated = this.replace(state, await this.deps.replicaSets.update(copy));
    if (sizeChanged) this.deps.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${direction} replica set ${updated.metadata.name ?? ''} from ${from} to ${size}`);
    return { scaled: sizeChanged, rs: updated };
  }

  private async scaleAndRecord(state: State, rs: ReplicaSetObject, size: number): Promise<{ scaled: boolean; rs: ReplicaSetObject }> {
    if (specReplicas(rs) === size) return { scaled: false, rs };
    return this.scaleReplicaSet(state, rs, size, specReplicas(rs) < size ? 'up' : 'down');
  }

  /** A replicas change, not a template change: some active ReplicaSet was sized for another count (upstream's isScalingEvent). */
  private async isScalingEvent(state: State): Promise<boolean> {
    const { newRS, oldRSs } = await this.newAndOld(state, false);
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = desiredReplicasAnnotation(rs);
      return desired !== undefined && desired !== desiredReplicas(state.d);
    });
  }

  /** upstream's scale(): the single active set takes all; a saturated new set empties the old; else proportional (rolling only). */
  private async scale(state: State, newRS: ReplicaSetObject | undefined, oldRSs: ReplicaSetObject[]): Promise<void> {
    const { d } = state;
    const target = findActiveOrLatest(newRS, oldRSs);
    if (target !== undefined) {
      if (specReplicas(target) !== desiredReplicas(d)) await this.scaleAndRecord(state, target, desiredReplicas(d));
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeReplicaSets(oldRSs)) await this.scaleAndRecord(state, old, 0);
      return;
    }
    if (!isRollingUpdate(d)) return;
    for (const { rs, size, direction } of proportionalSizes(d, activeReplicaSets([...oldRSs, newRS]))) {
      await this.scaleReplicaSet(state, rs, size, direction);
    }
  }

  /** Paused, or only resized: scale, clean up when paused, write status (upstream's sync). */
  private async syncScale(state: State): Promise<void> {
    let { newRS, oldRSs } = await this.newAndOld(state, false);
    await this.scale(state, newRS, oldRSs);
    ({ newRS, oldRSs } = this.current(state, newRS));
    if (state.d.spec?.paused) await this.cleanup(state, oldRSs);
    await this.syncStatus(state, [...oldRSs, ...(newRS ? [newRS] : [])], newRS);
  }

  private async syncStatusOnly(state: State): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(state, false);
    await this.syncStatus(state, [...oldRSs, ...(newRS ? [newRS] : [])], newRS);
  }

  /** The new and old sets as they are after this sync's writes. */
  private current(state: State, newRS: ReplicaSetObject | undefined): { newRS: ReplicaSetObject | undefined; oldRSs: ReplicaSetObject[] } {
    const fresh = newRS === undefined ? undefined : state.rsList.find((rs) => rs.metadata.uid === newRS.metadata.uid);
    return { newRS: fresh, oldRSs: state.rsList.filter((rs) => fresh === undefined || rs.metadata.uid !== fresh.metadata.uid) };
  }

  private async syncStatus(state: State, allRSs: readonly ReplicaSetObject[], newRS: ReplicaSetObject | undefined): Promise<void> {
    const status = computeDeploymentStatus(state.d, allRSs, newRS, this.deps.now());
    if (statusEqual(state.d.status, status)) return;
    state.d.status = status;
    await this.updateStatus(state);
  }

  private async checkPausedConditions(state: State): Promise<void> {
    const { d } = state;
    if (!hasProgressDeadline(d)) return;
    const condition = getCondition(d.status, PROGRESSING);
    if (condition?.reason === REASON.timedOut) return;
    const pausedShown = condition?.reason === REASON.paused;
    d.status ??= {};
    if (d.spec?.paused && !pausedShown) {
      setCondition(d.status, newCondition(PROGRESSING, 'Unknown', REASON.paused, 'Deployment is paused', this.deps.now()));
    } else if (!d.spec?.paused && pausedShown) {
      setCondition(d.status, newCondition(PROGRESSING, 'Unknown', REASON.resumed, 'Deployment is resumed', this.deps.now()));
    } else {
      return;
    }
    await this.updateStatus(state);
  }

  // ---- rolling update (upstream's rolling.go)

  private async rolloutRolling(state: State): Promise<RolloutResult> {
    let { newRS } = await this.newAndOld(state, true);
    if (newRS === undefined) throw new Error('the new replica set was not created');
    if (await this.reconcileNewReplicaSet(state, newRS)) return this.syncRolloutStatus(state, newRS);
    ({ newRS } = this.current(state, newRS));
    if (newRS === undefined) throw new Error('the new replica set vanished');
    if (await this.reconcileOldReplicaSets(state, newRS)) return this.syncRolloutStatus(state, newRS);
    if (isDeploymentComplete(state.d, state.d.status ?? {})) await this.cleanup(state, this.current(state, newRS).oldRSs);
    return this.syncRolloutStatus(state, newRS);
  }

  private async reconcileNewReplicaSet(state: State, newRS: ReplicaSetObject): Promise<boolean> {
    const replicas = desiredReplicas(state.d);
    if (specReplicas(newRS) === replicas) return false;
    if (specReplicas(newRS) > replicas) return (await this.scaleAndRecord(state, newRS, replicas)).scaled;
    const count = newReplicaSetReplicas(state.d, state.rsList, newRS);
    return (await this.scaleAndRecord(state, newRS, count)).scaled;
  }

  private async reconcileOldReplicaSets(state: State, newRS: ReplicaSetObject): Promise<boolean> {
    const { d } = state;
    const oldRSs = state.rsList.filter((rs) => rs.metadata.uid !== newRS.metadata.uid);
    const oldPods = sumSpecReplicas(oldRSs);
    if (oldPods === 0) return false;
    const allPods = sumSpecReplicas(state.rsList);
    const minAvailable = desiredReplicas(d) - maxUnavailable(d);
    const newUnavailable = specReplicas(newRS) - availableReplicas(newRS);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    const cleaned = await this.cleanupUnhealthyReplicas(state, activeReplicaSets(oldRSs), maxScaledDown);
    const scaledDown = await this.scaleDownOldForRollingUpdate(state, newRS);
    return cleaned + scaledDown > 0;
  }

  /** Scale down old pods that are not available first: removing them costs no availability. */
  private async cleanupUnhealthyReplicas(state: State, oldRSs: ReplicaSetObject[], maxCleanup: number): Promise<number> {
    let total = 0;
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (total >= maxCleanup) break;
      if (specReplicas(rs) === 0 || specReplicas(rs) === availableReplicas(rs)) continue;
      const count = Math.min(maxCleanup - total, specReplicas(rs) - availableReplicas(rs));
      const size = specReplicas(rs) - count;
      if (size > specReplicas(rs)) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.namespace ?? ''}/${rs.metadata.name ?? ''} ${specReplicas(rs)} -> ${size}`);
      await this.scaleAndRecord(state, rs, size);
      total += count;
    }
    return total;
  }

  /** Scale old sets down as far as availability allows: never below replicas − maxUnavailable available. */
  private async scaleDownOldForRollingUpdate(state: State, newRS: ReplicaSetObject): Promise<number> {
    const { d } = state;
    const minAvailable = desiredReplicas(d) - maxUnavailable(d);
    const available = sumAvailableReplicas(state.rsList);
    if (available <= minAvailable) return 0;
    const oldRSs = state.rsList.filter((rs) => rs.metadata.uid !== newRS.metadata.uid).sort(byCreation);
    const toScaleDown = available - minAvailable;
    let total = 0;
    for (const rs of oldRSs) {
      if (total >= toScaleDown) break;
      if (specReplicas(rs) === 0) continue;
      const count = Math.min(specReplicas(rs), toScaleDown - total);
      await this.scaleAndRecord(state, rs, specReplicas(rs) - count);
      total += count;
    }
    return total;
  }

  // ---- recreate (upstream's recreate.go)

  private async rolloutRecreate(state: State): Promise<RolloutResult> {
    let { newRS, oldRSs } = await this.newAndOld(state, false);
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) {
      if ((await this.scaleAndRecord(state, rs, 0)).scaled) scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus(state, this.current(state, newRS).newRS);
    ({ newRS, oldRSs } = this.current(state, newRS));
    if (this.oldPodsRunning(newRS, oldRSs)) return this.syncRolloutStatus(state, newRS);
    if (newRS === undefined) ({ newRS, oldRSs } = await this.newAndOld(state, true));
    if (newRS === undefined) throw new Error('the new replica set was not created');
    await this.scaleAndRecord(state, newRS, desiredReplicas(state.d));
    ({ newRS, oldRSs } = this.current(state, newRS));
    if (isDeploymentComplete(state.d, state.d.status ?? {})) await this.cleanup(state, oldRSs);
    return this.syncRolloutStatus(state, newRS);
  }

  /** Old ReplicaSets still report replicas, or own a pod that has not finished (Unknown counts as running). */
  private oldPodsRunning(newRS: ReplicaSetObject | undefined, oldRSs: readonly ReplicaSetObject[]): boolean {
    if (sumStatusReplicas(oldRSs) > 0) return true;
    return oldRSs.some((rs) => rs.metadata.uid !== newRS?.metadata.uid && this.deps.podsOf(rs).some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded'));
  }

  // ---- history and status

  /** Delete the oldest unused ReplicaSets beyond revisionHistoryLimit (upstream's cleanupDeployment). */
  private async cleanup(state: State, oldRSs: readonly ReplicaSetObject[]): Promise<void> {
    const limit = state.d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === 2147483647) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    const ordered = [...cleanable].sort(byRevision);
    for (const rs of ordered.slice(0, diff)) {
      if ((rs.status?.replicas ?? 0) !== 0 || specReplicas(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.deps.replicaSets.delete(rs.metadata.name ?? '', { namespace: rs.metadata.namespace ?? '' });
      } catch (e: unknown) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
      state.rsList = state.rsList.filter((x) => x.metadata.uid !== rs.metadata.uid);
    }
  }

  private async syncRolloutStatus(state: State, newRS: ReplicaSetObject | undefined): Promise<RolloutResult> {
    const { d } = state;
    const now = this.deps.now();
    const fresh = this.current(state, newRS).newRS;
    const status = computeRolloutStatus(d, state.rsList, fresh, now);
    if (statusEqual(d.status, status)) {
      const after = stuckRequeueMs(d, status, now);
      return after === undefined ? {} : { requeueAfterMs: after };
    }
    d.status = status;
    await this.updateStatus(state);
    return {};
  }
}

/** Status equality with absent and zero counts alike (the server omits zero values). */
export function statusEqual(a: object | undefined, b: object | undefined): boolean {
  const strip = (s: object | undefined): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s ?? {})) if (v !== undefined && v !== null && v !== 0 && !(Array.isArray(v) && v.length === 0)) out[k] = v;
    return out;
  };
  return jsonEqual(strip(a), strip(b));
}

function isNamespaceTerminating(e: unknown): boolean {
  return e instanceof StatusError && (e.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}
