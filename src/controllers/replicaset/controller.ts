/**
 * The ReplicaSet controller (upstream's `replicaset`): keeps exactly
 * spec.replicas active pods matching each ReplicaSet's selector. It adopts
 * matching orphans and releases owned pods that stop matching, creates
 * missing pods in slow-start batches and deletes the pods upstream would
 * delete first, and never acts on a ReplicaSet while creates or deletes it
 * asked for are still unseen by its pod informer (expectations), so a slow
 * watch never makes it create or delete twice. Status is written through
 * /status only when it changed.
 */
import type { ControllerDefinition, ControllerContext } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX, objectKey } from '../../client/cache/interfaces.js';
import { PODS, REPLICA_SETS } from '../../client/rest/resources.js';
import { deepCopy, jsonEqual } from '../../machinery/meta.js';
import { labelSelectorFromObject, type LabelSelector } from '../../machinery/selectors/label-selector.js';
import { isConflict, isNotFound, StatusError } from '../../machinery/status.js';
import { claimObjects, recheckOwner } from '../util/controller-ref.js';
import { UIDTrackingExpectations, type ExpectationsOptions } from '../util/expectations.js';
import type { KeyQueue } from '../util/key-queue.js';
import { controllerRefOf, newControllerRef, newPodControl, type PodControl } from '../util/pod-control.js';
import { podsToDelete } from '../util/pod-ranking.js';
import { isPodActive, isPodReady, msUntilAvailable } from '../util/pod-readiness.js';
import { slowStartBatch } from '../util/slow-start.js';
import type { PodObject, ReplicaSetObject } from '../util/types.js';
import { computeReplicaSetStatus, replicaSetStatusChanged } from './status.js';

export const REPLICA_SET_CONTROLLER_NAME = 'replicaset';
export const REPLICA_SET_EVENT_SOURCE = 'replicaset-controller';
/** Upstream's BurstReplicas: at most this many creates or deletes per sync. */
export const BURST_REPLICAS = 500;
/** Index of pods without a controller, by namespace: the orphans a ReplicaSet may adopt. */
const ORPHAN_PODS_INDEX = 'replicaset:orphansByNamespace';
const RS_GVK = { apiVersion: 'apps/v1', kind: 'ReplicaSet' } as const;

export interface ReplicaSetControllerOptions {
  readonly expectations?: ExpectationsOptions;
  /** The clock for availability (default: new Date()). */
  readonly now?: () => Date;
  readonly burstReplicas?: number;
}

export interface ReplicaSetController {
  /** One level-based sync of a ReplicaSet key (`namespace/name`). */
  sync(key: string): Promise<ReconcileResult | void>;
  readonly expectations: UIDTrackingExpectations;
}

/** Registers the informers and handlers; returns the sync function (the loop is started by the definition). */

export function newReplicaSetController(ctx: ControllerContext, queue: KeyQueue, options: ReplicaSetControllerOptions = {}): ReplicaSetController {
  const enqueue = (key: string): void => queue.enqueue(key);
  const enqueueAfter = (key: string, ms: number): void => queue.enqueueAfter(key, ms);
  const now = options.now ?? (() => new Date());
  const burst = options.burstReplicas ?? BURST_REPLICAS;
  const expectations = new UIDTrackingExpectations(options.expectations);
  const rsInformer = ctx.informers.informerFor<ReplicaSetObject>(REPLICA_SETS);
  const podInformer = ctx.informers.informerFor<PodObject>(PODS);
  podInformer.indexer.addIndexers({
    [ORPHAN_PODS_INDEX]: (pod) => (controllerRefOf(pod) === undefined ? [pod.metadata.namespace ?? ''] : []),
  });
  const rsIndexer = rsInformer.indexer;
  const podIndexer = podInformer.indexer;
  const rsClient = ctx.client.resource<ReplicaSetObject>(REPLICA_SETS);
  const podClient = ctx.client.resource<PodObject>(PODS);
  const podControl: PodControl = newPodControl(ctx.client, ctx.events.recorderFor(REPLICA_SET_EVENT_SOURCE));
  const log = ctx.logger.child({ controller: REPLICA_SET_CONTROLLER_NAME });

  /** The ReplicaSet a controller reference names, if it is still the one with that uid. */
  const resolveRef = (namespace: string, pod: PodObject): ReplicaSetObject | undefined => {
    const ref = controllerRefOf(pod);
    if (ref === undefined || ref.kind !== 'ReplicaSet' || !ref.apiVersion.startsWith('apps/')) return undefined;
    const rs = rsIndexer.get(`${namespace}/${ref.name}`);
    return rs !== undefined && rs.metadata.uid === ref.uid ? rs : undefined;
  };
  const replicaSetsSelecting = (pod: PodObject): ReplicaSetObject[] =>
    rsIndexer.byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '').filter((rs) => selectorOf(rs)?.matches(pod.metadata.labels) === true);

  const podDeleted = (pod: PodObject): void => {
    const rs = resolveRef(pod.metadata.namespace ?? '', pod);
    if (rs === undefined) return;
    const key = objectKey(rs);
    expectations.deletionOfObserved(key, objectKey(pod));
    enqueue(key);
  };

  podInformer.addEventHandler({
    onAdd: (pod) => {
      if (pod.metadata.deletionTimestamp) {
        podDeleted(pod);
        return;
      }
      if (controllerRefOf(pod) !== undefined) {
        const rs = resolveRef(pod.metadata.namespace ?? '', pod);
        if (rs === undefined) return;
        expectations.creationObserved(objectKey(rs));
        enqueue(objectKey(rs));
        return;
      }
      for (const rs of replicaSetsSelecting(pod)) enqueue(objectKey(rs));
    },
    onUpdate: (old, cur) => {
      if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
      const labelsChanged = !jsonEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {});
      if (cur.metadata.deletionTimestamp) {
        podDeleted(cur);
        if (labelsChanged) podDeleted(old);
        return;
      }
      const oldRef = controllerRefOf(old);
      const curRef = controllerRefOf(cur);
      const refChanged = !jsonEqual(oldRef ?? null, curRef ?? null);
      if (refChanged && oldRef !== undefined) {
        const rs = resolveRef(old.metadata.namespace ?? '', old);
        if (rs !== undefined) enqueue(objectKey(rs));
      }
      if (curRef !== undefined) {
        const rs = resolveRef(cur.metadata.namespace ?? '', cur);
        if (rs === undefined) return;
        enqueue(objectKey(rs));
        const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
        // A second more, as upstream, so the check never lands a few milliseconds early.
        if (!isPodReady(old) && isPodReady(cur) && minReadySeconds > 0) enqueueAfter(objectKey(rs), minReadySeconds * 1000 + 1000);
        return;
      }
      if (labelsChanged || refChanged) for (const rs of replicaSetsSelecting(cur)) enqueue(objectKey(rs));
    },
    onDelete: (pod) => podDeleted(pod),
  });

  rsInformer.addEventHandler({
    onAdd: (rs) => enqueue(objectKey(rs)),
    onUpdate: (_old, cur) => enqueue(objectKey(cur)),
    onDelete: (rs) => {
      expectations.delete(objectKey(rs));
      enqueue(objectKey(rs));
    },
  });

  /** Active pods the ReplicaSet owns or may adopt: by controller uid, plus the namespace's orphans. */
  const candidatePods = (rs: ReplicaSetObject): PodObject[] => {
    const owned = podIndexer.byIndex(CONTROLLER_UID_INDEX, rs.metadata.uid ?? '');
    const orphans = podIndexer.byIndex(ORPHAN_PODS_INDEX, rs.metadata.namespace ?? '');
    return [...owned, ...orphans].filter(isPodActive);
  };

  /** Pods of ReplicaSets with the same controller (a Deployment's other ReplicaSets), for the colocation rank. */
  const relatedPods = (rs: ReplicaSetObject): PodObject[] => {
    const owner = controllerRefOf(rs);
    if (owner === undefined) return podIndexer.byIndex(CONTROLLER_UID_INDEX, rs.metadata.uid ?? '');
    const siblings = rsIndexer.byIndex(CONTROLLER_UID_INDEX, owner.uid);
    return siblings.flatMap((s) => podIndexer.byIndex(CONTROLLER_UID_INDEX, s.metadata.uid ?? ''));
  };

  const manageReplicas = async (rs: ReplicaSetObject, pods: readonly PodObject[], key: string): Promise<void> => {
    const wanted = rs.spec?.replicas ?? 1;
    let diff = pods.length - wanted;
    if (diff < 0) {
      const count = Math.min(-diff, burst);
      expectations.expectCreations(key, count);
      const controllerRef = newControllerRef(rs, RS_GVK);
      const template = rs.spec?.template ?? {};
      const { successes, error } = await slowStartBatch(count, async () => {
        try {
          await podControl.createPod({ template, owner: rs, controllerRef });
        } catch (e: unknown) {
          if (isNamespaceTerminating(e)) return;
          throw e;
        }
      });
      // Creates never attempted (or failed) will never be observed.
      const skipped = count - successes;
      if (skipped > 0) expectations.lower(key, skipped, 0);
      if (error !== undefined) throw error;
      return;
    }
    if (diff > 0) {
      diff = Math.min(diff, burst);
      const victims = podsToDelete(pods, diff, { related: relatedPods(rs), now: now() });
      expectations.expectDeletionsOf(key, victims.map((p) => objectKey(p)));
      const results = await Promise.allSettled(
        victims.map(async (pod) => {
          try {
            await podControl.deletePod({ namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', owner: rs });
          } catch (e: unknown) {
            expectations.deletionOfObserved(key, objectKey(pod));
            if (!isNotFound(e)) throw e;
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    }
  };

  const writeStatus = async (rs: ReplicaSetObject, pods: readonly PodObject[], manageError: unknown): Promise<ReplicaSetObject> => {
    const status = computeReplicaSetStatus(rs, pods, manageError, now());
    if (!replicaSetStatusChanged(rs, status)) return rs;
    status.observedGeneration = rs.metadata.generation ?? 0;
    let target: ReplicaSetObject = { ...deepCopy(rs), status };
    try {
      return await rsClient.updateStatus(target);
    } catch (e: unknown) {
      if (!isConflict(e)) throw e;
      // One retry on a fresh copy, as upstream's statusUpdateRetries.
      const fresh = await rsClient.get(rs.metadata.name ?? '', { namespace: rs.metadata.namespace ?? '' });
      target = { ...fresh, status };
      return await rsClient.updateStatus(target);
    }
  };

  const sync = async (key: string): Promise<ReconcileResult | void> => {
    const cached = rsIndexer.get(key);
    if (cached === undefined) {
      expectations.delete(key);
      return;
    }
    // List items may come without their kind; Events need it for involvedObject.
    const rs: ReplicaSetObject = { ...deepCopy(cached), apiVersion: 'apps/v1', kind: 'ReplicaSet' };
    const needsSync = expectations.satisfied(key);
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromObject(rs.spec?.selector);
    } catch (e: unknown) {
      log.error({ key, err: e }, `error converting pod selector to selector for rs ${key}`);
      return;
    }
    const claimed = await claimObjects(candidatePods(rs), {
      owner: rs,
      controllerRef: newControllerRef(rs, RS_GVK),
      selector,
      client: podClient,
      canAdopt: recheckOwner(() => rsClient.get(rs.metadata.name ?? '', { namespace: rs.metadata.namespace ?? '' }), rs),
    });
    let manageError: unknown;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await manageReplicas(rs, claimed, key);
      } catch (e: unknown) {
        manageError = e;
      }
    }
    const updated = await writeStatus(rs, claimed, manageError);
    if (manageError !== undefined) throw manageError;
    return requeueForAvailability(updated, claimed, now());
  };

  return { sync, expectations };
}

/**
 * When some ready pods are not yet available (minReadySeconds), sync again
 * the moment the first of them becomes available (upstream requeues after
 * minReadySeconds once all replicas are ready; this is never later).
 */
function requeueForAvailability(rs: ReplicaSetObject, pods: readonly PodObject[], now: Date): ReconcileResult | void {
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  if (minReadySeconds <= 0) return;
  const waits = pods.map((p) => msUntilAvailable(p, minReadySeconds, now)).filter((ms): ms is number => ms !== undefined);
  if (waits.length === 0) return;
  return { requeueAfterMs: Math.min(...waits) };
}

function selectorOf(rs: ReplicaSetObject): LabelSelector | undefined {
  try {
    const selector = labelSelectorFromObject(rs.spec?.selector);
    return selector.empty() ? undefined : selector;
  } catch {
    return undefined;
  }
}

function isNamespaceTerminating(e: unknown): boolean {
  return e instanceof StatusError && (e.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/** Register the controller on ctx and start its workers (the definition's start, with options for tests). */
export function startReplicaSetController(ctx: ControllerContext, options: ReplicaSetControllerOptions = {}): ReplicaSetController {
  let controller: ReplicaSetController | undefined;
  // The loop reconciles only after the caches synced, by which time the controller exists.
  const loop = startReconcileLoop(ctx, {
    name: REPLICA_SET_CONTROLLER_NAME,
    reconcile: async (key) => (controller === undefined ? undefined : controller.sync(key)),
  });
  controller = newReplicaSetController(ctx, { enqueue: loop.enqueue, enqueueAfter: loop.enqueueAfter }, options);
  return controller;
}

export const replicaSetController: ControllerDefinition = {
  name: REPLICA_SET_CONTROLLER_NAME,
  enabledByDefault: true,
  start(ctx) {
    startReplicaSetController(ctx);
  },
};

