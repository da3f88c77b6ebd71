/**
 * Reconciling one DaemonSet (upstream's syncDaemonSet): construct its
 * history, then — once every create and delete it asked for has been seen —
 * run the core loop (one pod per eligible node), a step of the rolling
 * update, and history cleanup; always write the status.
 */
import type { EventRecorder } from '../../client/record/interface.js';
import type { Indexer } from '../../client/cache/interfaces.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX } from '../../client/cache/interfaces.js';
import { DAEMON_SETS, PODS } from '../../client/rest/resources.js';
import { deepCopy } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { isConflict, isNotFound } from '../../machinery/status.js';
import type { ControllerContext } from '../context.js';
import type { ReconcileResult } from '../reconcile-loop.js';
import { claimObjects, recheckOwner } from '../util/controller-ref.js';
import type { UIDTrackingExpectations } from '../util/expectations.js';
import { controllerRefOf, newControllerRef, newPodControl } from '../util/pod-control.js';
import { slowStartBatch } from '../util/slow-start.js';
import { POD_REVISION_LABEL, type ControllerRevisionObject } from '../history/controller-revision.js';
import type { FailedPodBackoff } from './failed-pod-backoff.js';
import { claimRevisions, cleanupHistory, constructHistory, DAEMON_SET_KIND } from './history-sync.js';
import { planManage } from './manage-plan.js';
import { daemonPodTemplate } from './pod-template.js';
import { podsByNode } from './pods-by-node.js';
import { planRollingUpdate } from './rolling-update-plan.js';
import { daemonSetCounts, statusUpToDate } from './status.js';
import type { DaemonSetObject, NodeObject, PodObject } from './types.js';

/** Upstream's BurstReplicas: at most this many creates (and deletes) per sync. */
export const BURST_REPLICAS = 250;

export interface DaemonSetSyncerOptions {
  readonly ctx: ControllerContext;
  readonly daemonSets: Indexer<DaemonSetObject>;
  readonly pods: Indexer<PodObject>;
  readonly nodes: Indexer<NodeObject>;
  readonly revisions: Indexer<ControllerRevisionObject>;
  readonly expectations: UIDTrackingExpectations;
  readonly backoff: FailedPodBackoff;
  readonly recorder: EventRecorder;
  readonly now?: () => Date;
}

export interface DaemonSetSyncer {
  sync(key: string): Promise<ReconcileResult | void>;
}

/** The DaemonSet with its kind, as Events and ownerReferences need it (list items may come without). */
const typed = (ds: DaemonSetObject): DaemonSetObject => ({ ...ds, ...DAEMON_SET_KIND });

export function newDaemonSetSyncer(options: DaemonSetSyncerOptions): DaemonSetSyncer {
  const { ctx, expectations, backoff, recorder } = options;
  const now = options.now ?? (() => new Date());
  const podControl = newPodControl(ctx.client, recorder);
  const dsClient = ctx.client.resource<DaemonSetObject>(DAEMON_SETS);
  const podsClient = ctx.client.resource<PodObject>(PODS);

  /** The DaemonSet's pods (adopting matching orphans, releasing pods that stopped matching). */
  async function claimPods(ds: DaemonSetObject): Promise<PodObject[]> {
    const namespace = ds.metadata.namespace ?? '';
    const owned = options.pods.byIndex(CONTROLLER_UID_INDEX, ds.metadata.uid ?? '');
    const orphans = options.pods.byIndex(NAMESPACE_INDEX, namespace).filter((p) => controllerRefOf(p) === undefined);
    return claimObjects([...owned, ...orphans], {
      owner: ds,
      controllerRef: newControllerRef(ds, DAEMON_SET_KIND),
      selector: labelSelectorFromObject(ds.spec?.selector),
      client: podsClient,
      canAdopt: recheckOwner(() => dsClient.get(ds.metadata.name ?? '', { namespace }), ds),
    });
  }

  /** Create pods on the nodes and delete the pods, with expectations set first (upstream's syncNodes). */
  async function syncNodes(ds: DaemonSetObject, key: string, podsToDelete: readonly string[], nodesNeedingPods: readonly string[], hash: string): Promise<void> {
    const namespace = ds.metadata.namespace ?? '';
    const creates = nodesNeedingPods.slice(0, BURST_REPLICAS);
    const deletes = podsToDelete.slice(0, BURST_REPLICAS);
    expectations.expectDeletionsOf(key, deletes.map((name) => `${namespace}/${name}`));
    expectations.raise(key, creates.length, 0);
    const errors: unknown[] = [];
    const controllerRef = newControllerRef(ds, DAEMON_SET_KIND);
    let next = 0;
    const { error } = await slowStartBatch(creates.length, async () => {
      const node = creates[next++]!;
      try {
        await podControl.createPod({ template: daemonPodTemplate(ds, hash, node), owner: ds, controllerRef });
      } catch (e: unknown) {
        expectations.creationObserved(key);
        throw e;
      }
    });
    if (error !== undefined) {
      errors.push(error);
      const skipped = creates.length - next;
      if (skipped > 0) expectations.lower(key, skipped, 0);
    }
    await Promise.all(
      deletes.map(async (name) => {
        try {
          await podControl.deletePod({ namespace, name, owner: ds });
        } catch (e: unknown) {
          expectations.deletionOfObserved(key, `${namespace}/${name}`);
          if (!isNotFound(e)) errors.push(e);
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  }

  /** Write the status when it changed; one retry on a conflict with a fresh read. */
  async function storeStatus(ds: DaemonSetObject, counts: ReturnType<typeof daemonSetCounts>, observeGeneration: boolean): Promise<void> {
    const target = observeGeneration ? ds : { ...ds, metadata: { ...ds.metadata, generation: ds.status?.observedGeneration ?? 0 } };
    if (statusUpToDate(target, counts)) return;
    let toUpdate = deepCopy(ds);
    for (let attempt = 0; ; attempt++) {
      Object.assign(toUpdate, {
        status: { ...(toUpdate.status ?? {}), ...counts, ...(observeGeneration ? { observedGeneration: ds.metadata.generation ?? 0 } : {}) },
      });
      try {
        await dsClient.updateStatus(toUpdate, { namespace: ds.metadata.namespace ?? '' });
        return;
      } catch (e: unknown) {
        if (!isConflict(e) || attempt >= 1) throw e;
        toUpdate = await dsClient.get(ds.metadata.name ?? '', { namespace: ds.metadata.namespace ?? '' });
      }
    }
  }

  async function sync(key: string): Promise<ReconcileResult | void> {
    const cached = options.daemonSets.get(key);
    if (cached === undefined) {
      expectations.delete(key);
      return;
    }
    const ds = typed(cached);
    const selector = ds.spec?.selector;
    if (selector === undefined || ((selector.matchLabels === undefined || Object.keys(selector.matchLabels).length === 0) && (selector.matchExpressions ?? []).length === 0)) {
      recorder.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    // Being deleted: its history may already be gone, so its status cannot be trusted; leave it to the garbage collector.
    if (ds.metadata.deletionTimestamp) return;

    backoff.gc();
    const nodes = options.nodes.list();
    const pods = await claimPods(ds);
    const history = await constructHistory({ client: ctx.client, ds, revisions: await claimRevisions(ctx.client, options.revisions, ds), pods });
    const hash = history.current.metadata.labels?.[POD_REVISION_LABEL] ?? '';
    const at = now();
    const byNode = podsByNode(pods);
    const counts = () => daemonSetCounts({ ds, nodes, podsByNode: byNode, hash, now: at });

    if (!expectations.satisfied(key)) {
      await storeStatus(ds, counts(), false);
      return;
    }

    let requeueAfterMs: number | undefined;
    let failure: unknown;
    try {
      const backoffKey = (node: string) => `${ds.metadata.uid ?? ''}/${ds.status?.observedGeneration ?? 0}/${node}`;
      const plan = planManage({ ds, nodes, podsByNode: byNode, hash, now: at, failedPodBackoffMs: (node) => backoff.remainingMs(backoffKey(node)) });
      for (const node of plan.failedPodNodes) backoff.next(backoffKey(node));
      for (const event of plan.events) recorder.event(ds, event.type, event.reason, event.message);
      requeueAfterMs = plan.requeueAfterMs;
      await syncNodes(ds, key, plan.podsToDelete, plan.nodesNeedingPods, hash);

      // A rolling update step only when the core loop had nothing to do: its view of the pods is then still the truth.
      const managed = plan.podsToDelete.length > 0 || plan.nodesNeedingPods.length > 0;
      if (!managed && expectations.satisfied(key) && ds.spec?.updateStrategy?.type === 'RollingUpdate') {
        const step = planRollingUpdate({ ds, nodes, podsByNode: byNode, hash, now: at });
        await syncNodes(ds, key, step.podsToDelete, step.nodesNeedingPods, hash);
      }
      await cleanupHistory({ client: ctx.client, ds, old: history.old, pods });
    } catch (e: unknown) {
      failure = e;
    }
    const current = counts();
    try {
      await storeStatus(ds, current, true);
    } catch (e: unknown) {
      if (failure === undefined) throw e;
      ctx.logger.warn({ daemonset: key, err: e }, 'failed to update status');
    }
    if (failure !== undefined) throw failure;
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && current.numberReady !== current.numberAvailable) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, minReadySeconds * 1000);
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  return { sync };
}
