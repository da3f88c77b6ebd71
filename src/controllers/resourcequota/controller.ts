/**
 * The resource quota controller (upstream `resourcequota`): keeps each
 * ResourceQuota's status.hard equal to spec.hard and recounts status.used from
 * the live objects of its namespace — when the quota is added or its spec
 * changes, when a charged object goes away (deleted, or a pod reaching a
 * terminal phase), and every --resource-quota-sync-period. The ResourceQuota
 * admission plugin charges creates as they happen; this loop only has to catch
 * up with what admission cannot see (deletes, failed creates).
 */
import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';
import { BUILTIN_RESOURCES } from '../../api/resources.js';
import { podCountsAgainstQuota } from '../../api/quota/pods.js';
import { canonicalList, listsEqual, type ResourceList } from '../../api/quota/resource-list.js';
import { NAMESPACE_INDEX, objectKey, type SharedIndexInformer } from '../../client/cache/interfaces.js';
import type { Client, ResourceRef } from '../../client/rest/interface.js';
import { builtinResource, CONFIG_MAPS, PODS, SECRETS, SERVICES } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { isNotFound } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop } from '../reconcile-loop.js';
import { calculateUsage, type ListObjects } from './usage.js';

export type QuotaObject = ResourceQuota & KubeObject;
export const RESOURCE_QUOTAS = builtinResource('', 'v1', 'resourcequotas');

/** The resources whose deletes give quota back, watched through informers (upstream's replenishment controller). */
const REPLENISHED: readonly ResourceRef[] = [PODS, SERVICES, CONFIG_MAPS, SECRETS];

export interface QuotaSyncerDeps {
  readonly client: Client;
  readonly quotas: SharedIndexInformer<QuotaObject>['indexer'];
  /** Cached objects by `group/resource`; other resources are listed through the client. */
  readonly cached: ReadonlyMap<string, SharedIndexInformer['indexer']>;
  readonly now?: () => Date;
}

/** A resource's ref from the served built-ins (its first served version), or undefined. */
function refOf(group: string, resource: string): ResourceRef | undefined {
  const info = BUILTIN_RESOURCES.find((r) => r.group === group && r.resource === resource);
  return info === undefined ? undefined : builtinResource(info.group, info.version, info.resource);
}

/** The sync of one quota (by `namespace/name`): status.hard = spec.hard, status.used recounted. */
export function newQuotaSyncer(deps: QuotaSyncerDeps): (key: string) => Promise<void> {
  const list: ListObjects = async (group, resource, namespace) => {
    const cached = deps.cached.get(`${group}/${resource}`);
    if (cached !== undefined) return cached.byIndex(NAMESPACE_INDEX, namespace);
    const ref = refOf(group, resource);
    if (ref === undefined) return [];
    return (await deps.client.resource(ref).list({ namespace })).items;
  };
  return async (key) => {
    const quota = deps.quotas.get(key);
    if (quota === undefined) return;
    const hard = canonicalList((quota.spec?.hard ?? {}) as ResourceList);
    const used = await calculateUsage(quota, hard, list, deps.now?.() ?? new Date());
    const status = quota.status ?? {};
    if (listsEqual(hard, (status.hard ?? {}) as ResourceList) && listsEqual(used, (status.used ?? {}) as ResourceList)) return;
    try {
      // Optimistic concurrency on the quota read: a charge by admission since then makes this a 409, and the loop retries.
      await deps.client.resource<QuotaObject>(RESOURCE_QUOTAS).updateStatus({ ...quota, status: { hard, used } });
    } catch (e: unknown) {
      if (isNotFound(e)) return;
      throw e;
    }
  };
}

export const resourceQuotaController: ControllerDefinition = {
  name: 'resourcequota',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const quotas = ctx.informers.informerFor<QuotaObject>(RESOURCE_QUOTAS);
    const cached = new Map<string, SharedIndexInformer['indexer']>();
    const replenished = REPLENISHED.map((ref) => {
      const informer = ctx.informers.informerFor(ref);
      cached.set(`${ref.group}/${ref.resource}`, informer.indexer);
      return { ref, informer };
    });
    const sync = newQuotaSyncer({ client: ctx.client, quotas: quotas.indexer, cached });
    const period = ctx.options.resourceQuotaSyncPeriodMs;
    const loop = startReconcileLoop(ctx, {
      name: 'resourcequota',
      reconcile: async (key) => {
        await sync(key);
        return { requeueAfterMs: period };
      },
    });
    const enqueueNamespace = (namespace: string): void => {
      for (const quota of quotas.indexer.byIndex(NAMESPACE_INDEX, namespace)) loop.enqueue(objectKey(quota));
    };
    quotas.addEventHandler({
      onAdd: (quota) => loop.enqueue(objectKey(quota)),
      // Status-only changes are admission's charges (or ours): only a new spec.hard needs a recount now.
      onUpdate: (old, quota) => {
        if (JSON.stringify(old.spec) !== JSON.stringify(quota.spec)) {
          loop.enqueue(objectKey(quota));
        }
      },
    });
    for (const { ref, informer } of replenished) {
      informer.addEventHandler({
        onDelete: (object) => enqueueNamespace(object.metadata.namespace ?? ''),
        ...(ref === PODS
          ? {
              onUpdate: (old: KubeObject, pod: KubeObject) => {
                const now = new Date();
                if (podCountsAgainstQuota(old as Pod, now) && !podCountsAgainstQuota(pod as Pod, now)) enqueueNamespace(pod.metadata.namespace ?? '');
              },
            }
          : {}),
      });
    }
  },
};
