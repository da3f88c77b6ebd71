/**
 * The StatefulSet controller (upstream's `statefulset`, component
 * statefulset-controller): pods with stable names `<set>-<ordinal>`, made in
 * order and one at a time (OrderedReady) or all at once (Parallel), updated
 * from the highest ordinal down to the partition, with their templates
 * recorded as ControllerRevisions. PersistentVolumeClaims from
 * volumeClaimTemplates wait for the storage issue (see identity.ts).
 */
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import { NAMESPACE_INDEX, objectKey } from '../../client/cache/interfaces.js';
import { CONTROLLER_REVISIONS, PODS, STATEFUL_SETS } from '../../client/rest/resources.js';
import { jsonEqual, type OwnerReference } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { controllerRefOf } from '../util/pod-control.js';
import { isPodReady } from '../util/pod-readiness.js';
import type { ControllerRevisionObject } from '../history/controller-revision.js';
import { newStatefulSetSyncer } from './sync.js';
import type { PodObject, StatefulSetObject } from './types.js';

export const STATEFUL_SET_COMPONENT = 'statefulset-controller';

export function startStatefulSetController(ctx: ControllerContext): void {
  const sets = ctx.informers.informerFor<StatefulSetObject>(STATEFUL_SETS);
  const pods = ctx.informers.informerFor<PodObject>(PODS);
  const revisions = ctx.informers.informerFor<ControllerRevisionObject>(CONTROLLER_REVISIONS);
  const syncer = newStatefulSetSyncer({
    ctx,
    statefulSets: sets.indexer,
    pods: pods.indexer,
    revisions: revisions.indexer,
    recorder: ctx.events.recorderFor(STATEFUL_SET_COMPONENT),
  });
  const loop = startReconcileLoop(ctx, { name: 'statefulset', reconcile: (key) => syncer.sync(key) });
  const enqueue = (set: StatefulSetObject): void => loop.enqueue(objectKey(set));

  sets.addEventHandler({ onAdd: enqueue, onUpdate: (_old, cur) => enqueue(cur), onDelete: enqueue });

  const resolve = (namespace: string, ref: OwnerReference | undefined): StatefulSetObject | undefined => {
    if (ref === undefined || ref.kind !== 'StatefulSet') return undefined;
    const set = sets.indexer.get(`${namespace}/${ref.name}`);
    return set?.metadata.uid === ref.uid ? set : undefined;
  };
  const selecting = (pod: PodObject): StatefulSetObject[] =>
    sets.indexer.byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '').filter((s) => labelSelectorFromObject(s.spec?.selector).matches(pod.metadata.labels ?? {}));
  const wakeOwner = (pod: PodObject): void => {
    const set = resolve(pod.metadata.namespace ?? '', controllerRefOf(pod));
    if (set !== undefined) enqueue(set);
  };

  pods.addEventHandler({
    onAdd: (pod) => {
      if (controllerRefOf(pod) !== undefined) return wakeOwner(pod);
      for (const set of selecting(pod)) enqueue(set);
    },
    onUpdate: (old, cur) => {
      if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
      const refChanged = !jsonEqual(controllerRefOf(old), controllerRefOf(cur));
      if (refChanged) wakeOwner(old);
      if (controllerRefOf(cur) !== undefined) {
        wakeOwner(cur);
        const set = resolve(cur.metadata.namespace ?? '', controllerRefOf(cur));
        const minReadySeconds = set?.spec?.minReadySeconds ?? 0;
        if (set !== undefined && minReadySeconds > 0 && !isPodReady(old) && isPodReady(cur)) loop.enqueueAfter(objectKey(set), minReadySeconds * 1000 + 1000);
        return;
      }
      if (refChanged || !jsonEqual(old.metadata.labels, cur.metadata.labels)) for (const set of selecting(cur)) enqueue(set);
    },
    onDelete: wakeOwner,
  });
}

export const statefulSetController: ControllerDefinition = {
  name: 'statefulset',
  enabledByDefault: true,
  start: (ctx) => startStatefulSetController(ctx),
};
