/**
 * The ResourceQuota admission plugin (upstream plugin/pkg/admission/resourcequota,
 * the last plugin of the chain): a create or update in a namespace is refused
 * when it would take a ResourceQuota of that namespace past status.hard, and
 * otherwise charged to every matching quota.
 *
 * Charging is a compare-and-swap on the quota's status.used through the
 * resourcequotas/status store (storage's guaranteed update), one quota after
 * another: two API servers on one etcd can never both spend the last unit of a
 * quota, since the second write sees the first one's usage and is re-checked.
 * When a later quota refuses, the charges already made are given back (also by
 * compare-and-swap). Usage is never taken back on deletes: the resource quota
 * controller recomputes status.used from the live objects.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { forbidden, isNotFound, StatusError } from '../../../../machinery/status.js';
import { quotaMatches, type QuotaEvaluator } from '../../../../api/quota/evaluator.js';
import { evaluatorFor } from '../../../../api/quota/evaluators.js';
import {
  addLists,
  exceededResources,
  maskList,
  negativeResources,
  prettyPrint,
  removeZeros,
  subtractNonNegative,
  type ResourceList,
} from '../../../../api/quota/resource-list.js';
import type { GenericStore } from '../../../registry/generic/store.js';
import { newLiveLookup, watchObjects } from '../../watched-objects.js';
import type { AdmissionAttributes, AdmissionDependencies, AdmissionPluginFactory, ValidatingAdmissionPlugin } from '../../interfaces.js';

export const NAME = 'ResourceQuota';

type QuotaObject = ResourceQuota & KubeObject;

export interface ResourceQuotaOptions {
  /** The clock pods' usage is judged by (stuck terminating pods); default: now. */
  readonly now?: () => Date;
}

const hardOf = (q: ResourceQuota): ResourceList => (q.status?.hard ?? {}) as ResourceList;
const usedOf = (q: ResourceQuota): ResourceList => (q.status?.used ?? {}) as ResourceList;

/** Upstream's hasUsageStats: every tracked hard resource has a used value. */
function hasUsageStats(quota: ResourceQuota, tracked: readonly string[]): boolean {
  const used = usedOf(quota);
  return tracked.every((name) => hardOf(quota)[name] === undefined || used[name] !== undefined);
}

/** The quota with `requested` added to status.used, or the upstream refusal when it would exceed status.hard. */
function charge(quota: QuotaObject, requested: ResourceList, refuse: (message: string) => StatusError): Record<string, string> | undefined {
  const hard = hardOf(quota);
  const masked = maskList(requested, Object.keys(hard));
  if (Object.keys(masked).length === 0) return undefined;
  const used = usedOf(quota);
  const newUsage = addLists(used, masked);
  const exceeded = exceededResources(maskList(newUsage, Object.keys(masked)), hard);
  if (exceeded.length > 0) {
    throw refuse(
      `exceeded quota: ${quota.metadata.name ?? ''}, requested: ${prettyPrint(maskList(masked, exceeded))}, used: ${prettyPrint(maskList(used, exceeded))}, limited: ${prettyPrint(maskList(hard, exceeded))}`,
    );
  }
  return newUsage;
}

export function newResourceQuotaPlugin(deps: AdmissionDependencies, options: ResourceQuotaOptions = {}): ValidatingAdmissionPlugin {
  const now = options.now ?? (() => new Date());
  // Whether a namespace has quotas at all, from memory (a watch, as upstream's informer), with upstream's live lookup when it shows none;
  // the quotas themselves are read from the store, so that a charge starts from their latest status.
  const quotaStore = deps.stores('', 'v1', 'resourcequotas');
  const live = newLiveLookup<KubeObject>();
  const index = quotaStore === undefined ? undefined : watchObjects<QuotaObject>({ store: quotaStore, signal: deps.signal, onChange: (ns) => live.forget(ns) });
  /** True when memory knows the namespace has no quota (the common case, answered without waiting). */
  const knownFree = (namespace: string): boolean => index !== undefined && index.synced && index.list(namespace).length === 0 && live.peek(namespace)?.length === 0;
  const mayHaveQuotas = async (namespace: string): Promise<boolean> => {
    if (quotaStore === undefined || index === undefined || !index.synced) return true;
    if (index.list(namespace).length > 0) return true;
    return (await live.lookup(namespace, async () => (await quotaStore.list(namespace)).items)).length > 0;
  };
  const stores = (): { quotas: GenericStore; status: GenericStore } => {
    const quotas = deps.stores('', 'v1', 'resourcequotas');
    const status = deps.stores('', 'v1', 'resourcequotas', 'status');
    if (quotas === undefined || status === undefined) throw new Error('the API server serves no resourcequotas/status');
    return { quotas, status };
  };

  /** Write status.used += delta (or −= on refund) by compare-and-swap; the refusal is re-checked against the latest quota. */
  async function casCharge(status: GenericStore, namespace: string, name: string, delta: ResourceList, refuse: (m: string) => StatusError, refund: boolean): Promise<boolean> {
    let charged = false;
    try {
      await status.update(namespace, name, (current) => {
        if (current === undefined) throw new NoQuota();
        const quota = current as QuotaObject;
        const used = refund ? subtractNonNegative(usedOf(quota), maskList(delta, Object.keys(usedOf(quota)))) : charge(quota, delta, refuse);
        charged = used !== undefined;
        if (used === undefined) throw new NothingToCharge();
        return { ...quota, status: { ...quota.status, used } } as KubeObject;
      });
    } catch (e: unknown) {
      // The quota went away, or no longer tracks what this object uses: nothing to charge.
      if (e instanceof NoQuota || e instanceof NothingToCharge || isNotFound(e)) return false;
      throw e;
    }
    return charged;
  }

  async function check(a: AdmissionAttributes, evaluator: QuotaEvaluator, object: KubeObject): Promise<void> {
    if (!(await mayHaveQuotas(a.namespace))) return;
    const { quotas: quotaStore, status } = stores();
    const quotas = (await quotaStore.list(a.namespace)).items as QuotaObject[];
    if (quotas.length === 0) return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    const name = a.name !== '' ? a.name : (object.metadata.name ?? '');
    const refuse = (message: string): StatusError => forbidden(gr, name, message);

    const interesting: QuotaObject[] = [];
    for (const quota of quotas) {
      if (!quotaMatches(evaluator, quota, object)) continue;
      const tracked = evaluator.matchingResources(Object.keys(hardOf(quota)));
      const constraint = evaluator.constraints(tracked, object);
      if (constraint !== undefined) throw refuse(`failed quota: ${quota.metadata.name ?? ''}: ${constraint}`);
      if (!hasUsageStats(quota, tracked)) throw refuse(`status unknown for quota: ${quota.metadata.name ?? ''}, resources: ${[...tracked].sort().join(',')}`);
      interesting.push(quota);
    }
    if (interesting.length === 0) return;

    let delta: ResourceList = evaluator.usage(object, now());
    const negative = negativeResources(delta);
    if (negative.length > 0) throw refuse(`quota usage is negative for resource(s): ${negative.join(',')}`);
    if (a.operation === 'UPDATE') {
      const old = a.oldObject;
      if (old === undefined) throw refuse('unable to get previous usage since prior version of object was not found');
      // Charge only what the update adds (unless it is a create through update).
      if ((old.metadata.resourceVersion ?? '') !== '') delta = subtractNonNegative(delta, evaluator.usage(old, now()));
    }
    delta = removeZeros(delta);
    if (Object.keys(delta).length === 0) return;

    // Refuse without writing anything when the quotas as read already say no.
    for (const quota of interesting) charge(quota, delta, refuse);
    if (a.dryRun) return;

    const charged: string[] = [];
    try {
      for (const quota of interesting) {
        if (await casCharge(status, a.namespace, quota.metadata.name ?? '', delta, refuse, false)) charged.push(quota.metadata.name ?? '');
      }
    } catch (e: unknown) {
      // Give back what was charged; the controller's recount would fix a failure to do so.
      for (const quotaName of charged) await casCharge(status, a.namespace, quotaName, delta, refuse, true).catch(() => false);
      throw e;
    }
  }

  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    // Synchronous when the namespace is known to have no quota, so that the chain has nothing to wait for.
    validate(a) {
      if (a.namespace === '' || a.object === undefined || knownFree(a.namespace)) return undefined;
      if (a.resource.group === '' && a.resource.resource === 'namespaces') return undefined;
      const object = a.object;
      return (async () => {
        const evaluator = evaluatorFor(a.resource.group, a.resource.resource);
        if (!evaluator.handles(a.operation, a.subresource)) return;
        await check(a, evaluator, object);
      })();
    },
  };
}

class NoQuota extends Error {}
class NothingToCharge extends Error {}


export const newResourceQuota: AdmissionPluginFactory = (deps) => newResourceQuotaPlugin(deps);
