/**
 * Reconciling one StatefulSet (upstream's syncStatefulSet and
 * UpdateStatefulSet): claim its revisions and pods, settle the current and
 * update revisions, carry out the plan (plan.ts), write the status, and
 * delete revisions beyond revisionHistoryLimit that no pod uses.
 */
import type { EventRecorder } from '../../client/record/interface.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX } from '../../client/cache/interfaces.js';
import { CONTROLLER_REVISIONS, PODS, STATEFUL_SETS } from '../../client/rest/resources.js';
import { deepCopy } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { ControllerContext } from '../context.js';
import type { ReconcileResult } from '../reconcile-loop.js';
import { adoptObject, claimObjects, recheckOwner, releaseObject } from '../util/controller-ref.js';
import { controllerRefOf, newControllerRef } from '../util/pod-control.js';
import { slowStartBatch } from '../util/slow-start.js';
import { revisionsBeyondLimit, sortControllerRevisions, type ControllerRevisionObject } from '../history/controller-revision.js';
import { createControllerRevision, listOwnedOrOrphanRevisions, renumberControllerRevision } from '../history/revision-client.js';
import { isMemberOf, podRevision, STATEFUL_SET_KIND } from './identity.js';
import { planStatefulSet, statusChanged, type StatefulSetAction } from './plan.js';
import { newStatefulPodControl } from './pod-control.js';
import { currentRevisionOf, decideUpdateRevision, setAtRevision } from './revisions.js';
import type { PodObject, StatefulSetObject } from './types.js';

export interface StatefulSetSyncerOptions {
  readonly ctx: ControllerContext;
  readonly statefulSets: Indexer<StatefulSetObject>;
  readonly pods: Indexer<PodObject>;
  readonly revisions: Indexer<ControllerRevisionObject>;
  readonly recorder: EventRecorder;
  readonly now?: () => Date;
}

export interface StatefulSetSyncer {
  sync(key: string): Promise<ReconcileResult | void>;
}

/** The set with its kind, as Events and ownerReferences need it (list items may come without). */
const typed = (set: StatefulSetObject): StatefulSetObject => ({ ...set, ...STATEFUL_SET_KIND });

export function newStatefulSetSyncer(options: StatefulSetSyncerOptions): StatefulSetSyncer {
  const { ctx, recorder } = options;
  const now = options.now ?? (() => new Date());
  const podControl = newStatefulPodControl(ctx.client, recorder);
  const setsClient = ctx.client.resource<StatefulSetObject>(STATEFUL_SETS);
  const podsClient = ctx.client.resource<PodObject>(PODS);
  const revisionsClient = ctx.client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);

  /** Pods the set owns, after adopting matching orphans whose names say they are members and releasing owned pods that are not. */
  async function claimPods(set: StatefulSetObject): Promise<PodObject[]> {
    const namespace = set.metadata.namespace ?? '';
    const owned = options.pods.byIndex(CONTROLLER_UID_INDEX, set.metadata.uid ?? '');
    const orphans = options.pods.byIndex(NAMESPACE_INDEX, namespace).filter((p) => controllerRefOf(p) === undefined);
    const claimed = await claimObjects([...owned, ...orphans], {
      owner: set,
      controllerRef: newControllerRef(set, STATEFUL_SET_KIND),
      selector: labelSelectorFromObject(set.spec?.selector),
      client: podsClient,
      canAdopt: recheckOwner(() => setsClient.get(set.metadata.name ?? '', { namespace }), set),
      adoptable: (pod) => isMemberOf(set, pod),
    });
    // A pod the set owns whose name does not say it is a member is let go, as upstream's claim filter does.
    const strangers = claimed.filter((pod) => !isMemberOf(set, pod));
    for (const pod of strangers) await releaseObject(podsClient, pod, set.metadata.uid ?? '');
    return claimed.filter((pod) => isMemberOf(set, pod));
  }

  /** The set's revisions (sorted), orphans that match its selector adopted. */
  async function revisionsOf(set: StatefulSetObject): Promise<ControllerRevisionObject[]> {
    const revisions = listOwnedOrOrphanRevisions(options.revisions, set, labelSelectorFromObject(set.spec?.selector));
    const controllerRef = newControllerRef(set, STATEFUL_SET_KIND);
    const adopted = await Promise.all(revisions.map((r) => (controllerRefOf(r) === undefined ? adoptObject(revisionsClient, r, controllerRef) : r)));
    return sortControllerRevisions(adopted);
  }

  async function settleRevisions(set: StatefulSetObject, revisions: ControllerRevisionObject[]) {
    let collisionCount = set.status?.collisionCount ?? 0;
    const decision = decideUpdateRevision(set, revisions, collisionCount);
    let updateRevision: ControllerRevisionObject;
    if (decision.kind === 'existing') updateRevision = decision.revision;
    else if (decision.kind === 'renumber') updateRevision = await renumberControllerRevision(revisionsClient, decision.revision, decision.to);
    else {
      const created = await createControllerRevision({ client: revisionsClient, owner: set, revision: decision.revision, collisionCount });
      updateRevision = created.revision;
      collisionCount = created.collisionCount;
    }
    return { updateRevision, currentRevision: currentRevisionOf(set, revisions, updateRevision), collisionCount };
  }

  async function execute(set: StatefulSetObject, actions: readonly StatefulSetAction[], parallel: boolean): Promise<void> {
    const one = async (action: StatefulSetAction): Promise<void> => {
      if (action.kind === 'create') await podControl.createPod(set, action.pod);
      else if (action.kind === 'delete') await podControl.deletePod(set, action.pod);
      else await podControl.fixIdentity(set, action.pod);
    };
    if (!parallel) {
      for (const action of actions) await one(action);
      return;
    }
    // Parallel: identity repairs first, then creates in slow-start batches, then deletes all at once.
    for (const action of actions.filter((a) => a.kind === 'fix-identity')) await one(action);
    const creates = actions.filter((a) => a.kind === 'create');
    let next = 0;
    const { error } = await slowStartBatch(creates.length, () => one(creates[next++]!));
    const deletions = await Promise.allSettled(actions.filter((a) => a.kind === 'delete').map(one));
    const failed = deletions.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (error !== undefined) throw error;
    if (failed !== undefined) throw failed.reason;
  }

  async function storeStatus(set: StatefulSetObject, status: NonNullable<StatefulSetObject['status']>): Promise<void> {
    if (!statusChanged(set, status)) return;
    let toUpdate = deepCopy(set);
    for (let attempt = 0; ; attempt++) {
      Object.assign(toUpdate, { status });
      try {
        await setsClient.updateStatus(toUpdate, { namespace: set.metadata.namespace ?? '' });
        return;
      } catch (e: unknown) {
        if (!isConflict(e) || attempt >= 1) throw e;
        toUpdate = await setsClient.get(set.metadata.name ?? '', { namespace: set.metadata.namespace ?? '' });
      }
    }
  }

  async function truncateHistory(set: StatefulSetObject, revisions: readonly ControllerRevisionObject[], pods: readonly PodObject[], live: readonly ControllerRevisionObject[]): Promise<void> {
    const liveNames = new Set([...live.map((r) => r.metadata.name ?? ''), ...pods.map(podRevision)]);
    for (const revision of revisionsBeyondLimit(revisions, liveNames, set.spec?.revisionHistoryLimit ?? 10)) {
      try {
        await revisionsClient.delete(revision.metadata.name ?? '', { namespace: set.metadata.namespace ?? '' });
      } catch (e: unknown) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  async function sync(key: string): Promise<ReconcileResult | void> {
    const cached = options.statefulSets.get(key);
    if (cached === undefined) return;
    const set = typed(cached);
    const revisions = await revisionsOf(set);
    const pods = await claimPods(set);
    const { updateRevision, currentRevision, collisionCount } = await settleRevisions(set, revisions);
    const plan = planStatefulSet({
      set,
      currentSet: setAtRevision(set, currentRevision),
      updateSet: setAtRevision(set, updateRevision),
      currentRevision,
      updateRevision,
      collisionCount,
      pods,
      now: now(),
    });
    for (const event of plan.events) recorder.event(set, event.type, event.reason, event.message);
    let failure: unknown;
    try {
      await execute(set, plan.actions, set.spec?.podManagementPolicy === 'Parallel');
    } catch (e: unknown) {
      failure = e;
    }
    try {
      await storeStatus(set, plan.status);
      await truncateHistory(set, revisions, pods, [currentRevision, updateRevision]);
    } catch (e: unknown) {
      failure ??= e;
    }
    if (failure !== undefined) throw failure;
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && (plan.status.availableReplicas ?? 0) !== (set.spec?.replicas ?? 1)) return { requeueAfterMs: minReadySeconds * 1000 };
  }

  return { sync };
}
