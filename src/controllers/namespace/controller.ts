/**
 * The namespace controller (upstream's `namespace`): every namespace with a
 * deletionTimestamp is emptied and released by the deleter. While content
 * remains the namespace is looked at again after half the estimate plus one
 * second; any other failure retries with the loop's backoff. Namespaces are
 * re-checked every --namespace-sync-period.
 */
import type { KubeObject } from '../../machinery/meta.js';
import { objectKey } from '../../client/cache/interfaces.js';
import { NAMESPACES } from '../../client/rest/resources.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileLoop } from '../reconcile-loop.js';
import { namespacedDeletableResources } from './discovery.js';
import { NamespaceDeleter, ResourcesRemainingError } from './deleter.js';

export const NAMESPACE_CONTROLLER_NAME = 'namespace';
/**
 * Upstream's namespaceDeletionGracePeriod: a namespace event is processed
 * this long after it arrives, so that admission caches see the deletion
 * before the content is listed (nothing is created behind the deleter).
 */
export const NAMESPACE_DELETION_GRACE_PERIOD_MS = 5_000;

export interface NamespaceControllerOptions {
  /** Default NAMESPACE_DELETION_GRACE_PERIOD_MS. */
  readonly deletionGracePeriodMs?: number;
}

export function startNamespaceController(ctx: ControllerContext, options: NamespaceControllerOptions = {}): ReconcileLoop {
  const grace = options.deletionGracePeriodMs ?? NAMESPACE_DELETION_GRACE_PERIOD_MS;
  const deleter = new NamespaceDeleter({ client: ctx.client, resources: namespacedDeletableResources() });
  const loop = startReconcileLoop(ctx, {
    name: NAMESPACE_CONTROLLER_NAME,
    reconcile: async (name) => {
      try {
        await deleter.delete(name);
      } catch (e: unknown) {
        if (e instanceof ResourcesRemainingError) return { requeueAfterMs: (Math.floor(e.estimateSeconds / 2) + 1) * 1000 };
        throw e;
      }
    },
  });
  const enqueue = (ns: KubeObject): void => {
    if (ns.metadata.deletionTimestamp === undefined) return;
    if (grace > 0) loop.enqueueAfter(objectKey(ns), grace);
    else loop.enqueue(objectKey(ns));
  };
  ctx.informers.informerFor(NAMESPACES).addEventHandler(
    { onAdd: (ns) => enqueue(ns), onUpdate: (_old, ns) => enqueue(ns) },
    { resyncPeriodMs: ctx.options.namespaceSyncPeriodMs },
  );
  return loop;
}

export const namespaceController: ControllerDefinition = {
  name: NAMESPACE_CONTROLLER_NAME,
  enabledByDefault: true,
  start: (ctx) => {
    startNamespaceController(ctx);
  },
};
