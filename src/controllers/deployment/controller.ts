/**
 * The Deployment controller (upstream's `deployment`, Events from
 * `deployment-controller`): each Deployment owns ReplicaSets told apart by
 * pod-template-hash; the controller adopts matching orphan ReplicaSets,
 * releases those that stop matching, and rolls between them (see
 * rollout.ts). It watches Deployments, ReplicaSets, and pods (only so that a
 * Recreate rollout starts its new pods once the old ones are gone).
 */
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX, objectKey } from '../../client/cache/interfaces.js';
import { DEPLOYMENTS, PODS, REPLICA_SETS } from '../../client/rest/resources.js';
import { deepCopy, jsonEqual } from '../../machinery/meta.js';
import { labelSelectorFromObject, type LabelSelector } from '../../machinery/selectors/label-selector.js';
import { claimObjects, recheckOwner } from '../util/controller-ref.js';
import type { KeyQueue } from '../util/key-queue.js';
import { controllerRefOf, newControllerRef } from '../util/pod-control.js';
import type { DeploymentObject, PodObject, ReplicaSetObject } from '../util/types.js';
import { DeploymentRollout, statusEqual } from './rollout.js';

export const DEPLOYMENT_CONTROLLER_NAME = 'deployment';
export const DEPLOYMENT_EVENT_SOURCE = 'deployment-controller';
const DEPLOYMENT_GVK = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
/** ReplicaSets without a controller, by namespace: the orphans a Deployment may adopt. */
const ORPHAN_RS_INDEX = 'deployment:orphansByNamespace';


export interface DeploymentControllerOptions {
  /** The clock (default: new Date()). */
  readonly now?: () => Date;
}

export interface DeploymentController {
  sync(key: string): Promise<ReconcileResult | void>;
}

export function newDeploymentController(ctx: ControllerContext, queue: KeyQueue, options: DeploymentControllerOptions = {}): DeploymentController {
  const now = options.now ?? (() => new Date());
  const dInformer = ctx.informers.informerFor<DeploymentObject>(DEPLOYMENTS);
  const rsInformer = ctx.informers.informerFor<ReplicaSetObject>(REPLICA_SETS);
  const podInformer = ctx.informers.informerFor<PodObject>(PODS);
  rsInformer.indexer.addIndexers({
    [ORPHAN_RS_INDEX]: (rs) => (controllerRefOf(rs) === undefined ? [rs.metadata.namespace ?? ''] : []),
  });
  const dIndexer = dInformer.indexer;
  const rsIndexer = rsInformer.indexer;
  const podIndexer = podInformer.indexer;
  const deployments = ctx.client.resource<DeploymentObject>(DEPLOYMENTS);
  const replicaSets = ctx.client.resource<ReplicaSetObject>(REPLICA_SETS);
  const recorder = ctx.events.recorderFor(DEPLOYMENT_EVENT_SOURCE);
  const log = ctx.logger.child({ controller: DEPLOYMENT_CONTROLLER_NAME });
  const rollout = new DeploymentRollout({
    deployments,
    replicaSets,
    recorder,
    now,
    cachedReplicaSet: (namespace, name) => rsIndexer.get(`${namespace}/${name}`),
    podsOf: (rs) => podIndexer.byIndex(CONTROLLER_UID_INDEX, rs.metadata.uid ?? ''),
  });

  const enqueue = (d: DeploymentObject): void => queue.enqueue(objectKey(d));

  /** The Deployment a controller reference names, if it is still the one with that uid. */
  const resolve = (namespace: string, owned: { metadata: { ownerReferences?: ReplicaSetObject['metadata']['ownerReferences'] } }): DeploymentObject | undefined => {
    const ref = owned.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref === undefined || ref.kind !== 'Deployment') return undefined;
    const d = dIndexer.get(`${namespace}/${ref.name}`);
    return d !== undefined && d.metadata.uid === ref.uid ? d : undefined;
  };

  const deploymentsSelecting = (rs: ReplicaSetObject): DeploymentObject[] =>
    dIndexer.byIndex(NAMESPACE_INDEX, rs.metadata.namespace ?? '').filter((d) => {
      const selector = selectorOf(d);
      return selector !== undefined && !selector.empty() && selector.matches(rs.metadata.labels);
    });

  dInformer.addEventHandler({
    onAdd: enqueue,
    onUpdate: (_old, cur) => enqueue(cur),
    onDelete: enqueue,
  });

  rsInformer.addEventHandler({
    onAdd: (rs) => {
      if (rs.metadata.deletionTimestamp) {
        const d = resolve(rs.metadata.namespace ?? '', rs);
        if (d !== undefined) enqueue(d);
        return;
      }
      if (controllerRefOf(rs) !== undefined) {
        const d = resolve(rs.metadata.namespace ?? '', rs);
        if (d !== undefined) enqueue(d);
        return;
      }
      for (const d of deploymentsSelecting(rs)) enqueue(d);
    },
    onUpdate: (old, cur) => {
      if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
      const oldRef = controllerRefOf(old);
      const curRef = controllerRefOf(cur);
      const refChanged = !jsonEqual(oldRef ?? null, curRef ?? null);
      if (refChanged && oldRef !== undefined) {
        const d = resolve(old.metadata.namespace ?? '', old);
        if (d !== undefined) enqueue(d);
      }
      if (curRef !== undefined) {
        const d = resolve(cur.metadata.namespace ?? '', cur);
        if (d !== undefined) enqueue(d);
        return;
      }
      if (refChanged || !jsonEqual(old.metadata.labels ?? {}, cur.metadata.labels ?? {})) for (const d of deploymentsSelecting(cur)) enqueue(d);
    },
    onDelete: (rs) => {
      const d = resolve(rs.metadata.namespace ?? '', rs);
      if (d !== undefined) enqueue(d);
    },
  });

  podInformer.addEventHandler({
    // A Recreate rollout waits for the old pods to be gone: look again when the last one goes.
    onDelete: (pod) => {
      const rsRef = controllerRefOf(pod);
      if (rsRef === undefined || rsRef.kind !== 'ReplicaSet') return;
      const rs = rsIndexer.get(`${pod.metadata.namespace ?? ''}/${rsRef.name}`);
      if (rs === undefined || rs.metadata.uid !== rsRef.uid) return;
      const d = resolve(pod.metadata.namespace ?? '', rs);
      if (d === undefined || d.spec?.strategy?.type !== 'Recreate') return;
      const remaining = rsIndexer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid ?? '').reduce((n, s) => n + podIndexer.byIndex(CONTROLLER_UID_INDEX, s.metadata.uid ?? '').length, 0);
      if (remaining === 0) enqueue(d);
    },
  });

  const claimReplicaSets = async (d: DeploymentObject, selector: LabelSelector): Promise<ReplicaSetObject[]> => {
    const candidates = [...rsIndexer.byIndex(CONTROLLER_UID_INDEX, d.metadata.uid ?? ''), ...rsIndexer.byIndex(ORPHAN_RS_INDEX, d.metadata.namespace ?? '')];
    const claimed = await claimObjects(candidates, {
      owner: d,
      controllerRef: newControllerRef(d, DEPLOYMENT_GVK),
      selector,
      client: replicaSets,
      canAdopt: recheckOwner(() => deployments.get(d.metadata.name ?? '', { namespace: d.metadata.namespace ?? '' }), d),
    });
    return claimed.map((rs) => deepCopy(rs));
  };

  const sync = async (key: string): Promise<ReconcileResult | void> => {
    const cached = dIndexer.get(key);
    if (cached === undefined) return;
    // List items may come without their kind; Events need it for involvedObject.
    const d: DeploymentObject = { ...deepCopy(cached), apiVersion: 'apps/v1', kind: 'Deployment' };
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromObject(d.spec?.selector);
    } catch (e: unknown) {
      log.error({ key, err: e }, 'invalid selector');
      return;
    }
    if (selector.empty()) {
      recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      const generation = d.metadata.generation ?? 0;
      if ((d.status?.observedGeneration ?? 0) < generation) {
        const status = { ...d.status, observedGeneration: generation };
        if (!statusEqual(d.status, status)) await deployments.updateStatus({ ...d, status });
      }
      return;
    }
    const rsList = await claimReplicaSets(d, selector);
    const result = await rollout.sync(d, rsList);
    return result.requeueAfterMs === undefined ? undefined : { requeueAfterMs: result.requeueAfterMs };
  };

  return { sync };
}

function selectorOf(d: DeploymentObject): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(d.spec?.selector);
  } catch {
    return undefined;
  }
}

/** Register the controller on ctx and start its workers (the definition's start, with options for tests). */
export function startDeploymentController(ctx: ControllerContext, options: DeploymentControllerOptions = {}): DeploymentController {
  let controller: DeploymentController | undefined;
  // The loop reconciles only after the caches synced, by which time the controller exists.
  const loop = startReconcileLoop(ctx, {
    name: DEPLOYMENT_CONTROLLER_NAME,
    reconcile: async (key) => (controller === undefined ? undefined : controller.sync(key)),
  });
  controller = newDeploymentController(ctx, { enqueue: loop.enqueue, enqueueAfter: loop.enqueueAfter }, options);
  return controller;
}

export const deploymentController: ControllerDefinition = {
  name: DEPLOYMENT_CONTROLLER_NAME,
  enabledByDefault: true,
  start(ctx) {
    startDeploymentController(ctx);
  },
};

