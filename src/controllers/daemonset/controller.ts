/**
 * The DaemonSet controller (upstream's `daemonset`, component
 * daemonset-controller): one pod per eligible node, bound to it through node
 * affinity, with RollingUpdate (maxUnavailable, maxSurge) or OnDelete updates
 * recorded as ControllerRevisions. It watches DaemonSets, pods, nodes and
 * ControllerRevisions; every change that could alter a DaemonSet's plan
 * enqueues that DaemonSet, and sync.ts reconciles it.
 */
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import { objectKey, NAMESPACE_INDEX, type SharedIndexInformer } from '../../client/cache/interfaces.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from '../../client/rest/resources.js';
import { jsonEqual, type KubeObject, type OwnerReference } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { UIDTrackingExpectations } from '../util/expectations.js';
import { controllerRefOf } from '../util/pod-control.js';
import { isPodReady } from '../util/pod-readiness.js';
import type { ControllerRevisionObject } from '../history/controller-revision.js';
import { FailedPodBackoff } from './failed-pod-backoff.js';
import { newDaemonSetSyncer } from './sync.js';
import type { DaemonSetObject, NodeObject, PodObject } from './types.js';

export const DAEMON_SET_COMPONENT = 'daemonset-controller';

export interface DaemonSetControllerOptions {
  /** The first backoff between deletions of a failed pod on one node (default 1 s). */
  readonly failedPodBackoffInitialMs?: number;
}

export function startDaemonSetController(ctx: ControllerContext, options: DaemonSetControllerOptions = {}): void {
  const daemonSets = ctx.informers.informerFor<DaemonSetObject>(DAEMON_SETS);
  const pods = ctx.informers.informerFor<PodObject>(PODS);
  const nodes = ctx.informers.informerFor<NodeObject>(NODES);
  const revisions = ctx.informers.informerFor<ControllerRevisionObject>(CONTROLLER_REVISIONS);
  const expectations = new UIDTrackingExpectations();
  const backoff = new FailedPodBackoff({ ...(options.failedPodBackoffInitialMs !== undefined ? { initialMs: options.failedPodBackoffInitialMs } : {}) });
  const syncer = newDaemonSetSyncer({
    ctx,
    daemonSets: daemonSets.indexer,
    pods: pods.indexer,
    nodes: nodes.indexer,
    revisions: revisions.indexer,
    expectations,
    backoff,
    recorder: ctx.events.recorderFor(DAEMON_SET_COMPONENT),
  });
  const loop = startReconcileLoop(ctx, { name: 'daemonset', reconcile: (key) => syncer.sync(key) });

  const enqueue = (ds: DaemonSetObject): void => loop.enqueue(objectKey(ds));
  const enqueueAll = (): void => {
    for (const ds of daemonSets.indexer.list()) enqueue(ds);
  };
  watchDaemonSets(daemonSets, enqueue, (ds) => expectations.delete(objectKey(ds)));
  watchOwned(pods, daemonSets, {
    enqueue,
    created: (ds) => expectations.creationObserved(objectKey(ds)),
    deleted: (ds, pod) => expectations.deletionOfObserved(objectKey(ds), objectKey(pod)),
    becameReady: (ds) => {
      const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
      if (minReadySeconds > 0) loop.enqueueAfter(objectKey(ds), minReadySeconds * 1000 + 1000);
    },
  });
  watchOwned(revisions, daemonSets, { enqueue });
  // Nodes: a node coming or going, or changing its labels or taints, may change every DaemonSet's plan.
  nodes.addEventHandler({
    onAdd: enqueueAll,
    onUpdate: (old, cur) => {
      if (!jsonEqual(old.metadata.labels, cur.metadata.labels) || !jsonEqual(old.spec?.taints, cur.spec?.taints)) enqueueAll();
    },
    onDelete: enqueueAll,
  });
}

function watchDaemonSets(informer: SharedIndexInformer<DaemonSetObject>, enqueue: (ds: DaemonSetObject) => void, forget: (ds: DaemonSetObject) => void): void {
  informer.addEventHandler({
    onAdd: enqueue,
    onUpdate: (_old, cur) => enqueue(cur),
    onDelete: (ds) => {
      forget(ds);
      enqueue(ds);
    },
  });
}

interface OwnedHandlers {
  readonly enqueue: (ds: DaemonSetObject) => void;
  readonly created?: (ds: DaemonSetObject) => void;
  readonly deleted?: (ds: DaemonSetObject, object: KubeObject) => void;
  readonly becameReady?: (ds: DaemonSetObject) => void;
}

/**
 * Pods and revisions: an owned object wakes its DaemonSet (and counts toward
 * its expectations); an orphan wakes every DaemonSet that selects it, which
 * may adopt it.
 */
function watchOwned<T extends KubeObject>(informer: SharedIndexInformer<T>, daemonSets: SharedIndexInformer<DaemonSetObject>, handlers: OwnedHandlers): void {
  const resolve = (namespace: string, ref: OwnerReference | undefined): DaemonSetObject | undefined => {
    if (ref === undefined || ref.kind !== 'DaemonSet') return undefined;
    const ds = daemonSets.indexer.get(`${namespace}/${ref.name}`);
    return ds?.metadata.uid === ref.uid ? ds : undefined;
  };
  const selecting = (object: T): DaemonSetObject[] =>
    daemonSets.indexer
      .byIndex(NAMESPACE_INDEX, object.metadata.namespace ?? '')
      .filter((ds) => labelSelectorFromObject(ds.spec?.selector).matches(object.metadata.labels ?? {}));
  const onDelete = (object: T): void => {
    const ds = resolve(object.metadata.namespace ?? '', controllerRefOf(object));
    if (ds === undefined) return;
    handlers.deleted?.(ds, object);
    handlers.enqueue(ds);
  };
  informer.addEventHandler({
    onAdd: (object) => {
      if (object.metadata.deletionTimestamp) return onDelete(object);
      const ref = controllerRefOf(object);
      if (ref !== undefined) {
        const ds = resolve(object.metadata.namespace ?? '', ref);
        if (ds === undefined) return;
        handlers.created?.(ds);
        handlers.enqueue(ds);
        return;
      }
      for (const ds of selecting(object)) handlers.enqueue(ds);
    },
    onUpdate: (old, cur) => {
      if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
      const namespace = cur.metadata.namespace ?? '';
      const oldRef = controllerRefOf(old);
      const curRef = controllerRefOf(cur);
      const refChanged = !jsonEqual(oldRef, curRef);
      if (refChanged && oldRef !== undefined) {
        const previous = resolve(namespace, oldRef);
        if (previous !== undefined) handlers.enqueue(previous);
      }
      if (cur.metadata.deletionTimestamp) return onDelete(cur);
      if (curRef !== undefined) {
        const ds = resolve(namespace, curRef);
        if (ds === undefined) return;
        handlers.enqueue(ds);
        if (!isPodReady(old as PodObject) && isPodReady(cur as PodObject)) handlers.becameReady?.(ds);
        return;
      }
      if (refChanged || !jsonEqual(old.metadata.labels, cur.metadata.labels)) for (const ds of selecting(cur)) handlers.enqueue(ds);
    },
    onDelete,
  });
}

export const daemonSetController: ControllerDefinition = {
  name: 'daemonset',
  enabledByDefault: true,
  start: (ctx) => startDaemonSetController(ctx),
};
