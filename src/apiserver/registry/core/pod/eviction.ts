/**
 * POST pods/NAME/eviction: a policy/v1 Eviction deletes the pod gracefully,
 * with the DeleteOptions it carries (grace period, preconditions,
 * propagation policy, dry run), unless that would break the
 * PodDisruptionBudget covering the pod, as upstream's EvictionREST does:
 *
 * - a pod that is pending, terminal or already terminating is deleted
 *   without looking at budgets (it is not running, so evicting it disrupts
 *   nothing);
 * - a pod two budgets select is refused (500: upstream does not support it);
 * - a pod one budget selects spends one of the budget's disruptionsAllowed:
 *   the budget's status is decremented and the pod recorded in disruptedPods
 *   (one guaranteed update), or, when none is left, the eviction is refused
 *   with 429 TooManyRequests; a budget whose status is behind its spec
 *   (observedGeneration) also answers 429 until the disruption controller has
 *   caught up;
 * - an unready pod does not count as healthy, so it may go without spending
 *   the budget when the budget is otherwise met (or always, with
 *   unhealthyPodEvictionPolicy AlwaysAllow), provided it does not turn ready
 *   meanwhile (a resourceVersion precondition on the delete).
 *
 * The pod gets the DisruptionTarget condition before it is deleted. The
 * answer is a Success Status with code 201.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { updateDisruptionAllowedCondition } from '../../../../api/policy/v1/disruption-allowed.js';
import { formatTime, isPlainObject, type KubeObject } from '../../../../machinery/meta.js';
import { labelSelectorFromObject } from '../../../../machinery/selectors/label-selector.js';
import { badRequest, conflict, forbidden, isConflict, notFound, StatusError, tooManyRequests } from '../../../../machinery/status.js';
import { readObject } from '../../../endpoints/decode-object.js';
import { negotiateOutput } from '../../../endpoints/negotiation.js';
import { parseDryRun } from '../../../endpoints/query.js';
import type { VerbHandler } from '../../../endpoints/target.js';
import { writeObject } from '../../../server/response.js';
import type { DeleteParams, GenericStore } from '../../generic/store.js';
import { setPodCondition } from './binding.js';

const POLICIES = ['Orphan', 'Background', 'Foreground'] as const;

/** The Eviction's deleteOptions as the store's delete parameters; a bad value is a 400 naming it. */
export function evictionDeleteParams(options: unknown, dryRunQuery: boolean): DeleteParams {
  if (options === undefined || options === null) return { dryRun: dryRunQuery };
  if (!isPlainObject(options)) throw badRequest('deleteOptions must be an object');
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0)) {
    throw badRequest('gracePeriodSeconds must be a non-negative integer');
  }
  const policy = options.propagationPolicy;
  if (policy !== undefined && policy !== null && !(POLICIES as readonly unknown[]).includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Background", "Foreground", "Orphan"`);
  }
  const dryRun = options.dryRun;
  if (dryRun !== undefined && dryRun !== null && (!Array.isArray(dryRun) || dryRun.some((v) => v !== 'All'))) {
    throw badRequest(`Invalid dryRun value: ${JSON.stringify(dryRun)}: supported values: "All"`);
  }
  const pre = isPlainObject(options.preconditions) ? options.preconditions : {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string' && pre.uid !== '') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== '') preconditions.resourceVersion = pre.resourceVersion;
  return {
    dryRun: dryRunQuery || (Array.isArray(dryRun) && dryRun.includes('All')),
    ...(typeof grace === 'number' ? { gracePeriodSeconds: grace } : {}),
    ...(typeof policy === 'string' ? { propagationPolicy: policy as DeleteParams['propagationPolicy'] & string } : {}),
    ...(options.orphanDependents === true ? { orphanDependents: true } : {}),
    ...(Object.keys(preconditions).length > 0 ? { preconditions } : {}),
  };
}

/** The stores an eviction reads and writes; without the budget stores every eviction is allowed. */
export interface EvictionStores {
  readonly pods: GenericStore;
  /** pods/status: the DisruptionTarget condition is written through it. */
  readonly podStatus?: GenericStore;
  readonly budgets?: GenericStore;
  /** poddisruptionbudgets/status: disruptionsAllowed and disruptedPods are written through it. */
  readonly budgetStatus?: GenericStore;
}

/** Upstream's MaxDisruptedPodSize: evictions approved but not yet seen by the disruption controller. */
export const MAX_DISRUPTED_POD_SIZE = 2000;
/** How often an eviction of a pod that can skip budgets is retried after a conflict (upstream's EvictionsRetry steps). */
const CONFLICT_RETRIES = 20;
const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';
const VIOLATES_BUDGET = "Cannot evict pod as it would violate the pod's disruption budget.";
const BUDGET_RESOURCE = { group: 'policy', resource: 'poddisruptionbudget' };

type PodObject = KubeObject & Pod;
type BudgetObject = KubeObject & PodDisruptionBudget;

const phaseOf = (pod: PodObject): string => pod.status?.phase ?? '';
const isTerminating = (pod: PodObject): boolean => pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;

/** Pods whose eviction disrupts nothing: pending, finished, or already terminating. */
export function canIgnoreBudgets(pod: PodObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || isTerminating(pod);
}

/** A pending pod may turn running (and start counting) under us: pin its resourceVersion on delete. */
function shouldEnforceResourceVersion(pod: PodObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || isTerminating(pod));
}

export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

const withResourceVersion = (params: DeleteParams, resourceVersion: string | undefined): DeleteParams => ({
  ...params,
  preconditions: { ...params.preconditions, ...(resourceVersion !== undefined ? { resourceVersion } : {}) },
});

/** 429 for a budget the server is still processing (its status is behind, or the pod changed under us). */
export function budgetBeingProcessed(budgetName: string): StatusError {
  const error = tooManyRequests(VIOLATES_BUDGET, 10);
  error.status.details!.causes = [{ reason: DISRUPTION_BUDGET_CAUSE, message: `The disruption budget ${budgetName} is still being processed by the server.` }];
  return error;
}

/** 429 for a budget that allows no disruption now. */
export function budgetViolated(budget: BudgetObject): StatusError {
  const error = tooManyRequests(VIOLATES_BUDGET, 0);
  const status = budget.status;
  error.status.details!.causes = [
    {
      reason: DISRUPTION_BUDGET_CAUSE,
      message: `The disruption budget ${budget.metadata.name ?? ''} needs ${status?.desiredHealthy ?? 0} healthy pods and has ${status?.currentHealthy ?? 0} currently`,
    },
  ];
  return error;
}

/** The budgets of the pod's namespace whose selector matches it (an empty or invalid selector matches nothing). */
async function budgetsOf(budgets: GenericStore, pod: PodObject): Promise<BudgetObject[]> {
  const namespace = pod.metadata.namespace ?? '';
  const list = await budgets.list(namespace);
  return (list.items as BudgetObject[]).filter((budget) => {
    if ((budget.metadata.namespace ?? '') !== namespace) return false;
    let selector;
    try {
      selector = labelSelectorFromObject(budget.spec?.selector);
    } catch {
      return false;
    }
    return !selector.empty() && !selector.matchesNothing() && selector.matches(pod.metadata.labels);
  });
}

/**
 * Upstream's checkAndDecrement on a copy of the budget: throws when it allows
 * no disruption, else spends one and records the pod.
 */
export function spendDisruption(budget: BudgetObject, podName: string, now = new Date()): BudgetObject {
  const status = budget.status;
  const name = budget.metadata.name ?? '';
  if ((status?.observedGeneration ?? 0) < (budget.metadata.generation ?? 0)) throw budgetBeingProcessed(name);
  if (status === undefined) throw budgetViolated(budget);
  if (status.disruptionsAllowed < 0) throw forbidden(BUDGET_RESOURCE, name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw forbidden(BUDGET_RESOURCE, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (status.disruptionsAllowed === 0) throw budgetViolated(budget);
  const next = structuredClone(budget);
  const nextStatus = next.status!;
  nextStatus.disruptionsAllowed--;
  if (nextStatus.disruptionsAllowed === 0) updateDisruptionAllowedCondition(next, now);
  nextStatus.disruptedPods = { ...nextStatus.disruptedPods, [podName]: formatTime(now) };
  return next;
}

/** Mark the pod as a disruption target (upstream's DisruptionTarget condition), then delete it. */
async function markAndDelete(stores: EvictionStores, namespace: string, name: string, params: DeleteParams): Promise<void> {
  let deleteParams = params;
  if (params.dryRun !== true && stores.podStatus !== undefined) {
    const podResource = { group: '', resource: 'Pod' };
    const { object } = await stores.podStatus.update(namespace, name, (current) => {
      if (current === undefined) throw notFound({ group: '', resource: 'pods' }, name);
      const uid = params.preconditions?.uid;
      if (uid !== undefined && uid !== current.metadata.uid) {
        throw conflict(podResource, name, `the UID in the precondition (${uid}) does not match the UID in record (${current.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
      }
      const rv = params.preconditions?.resourceVersion;
      if (rv !== undefined && rv !== current.metadata.resourceVersion) {
        throw conflict(podResource, name, `the ResourceVersion in the precondition (${rv}) does not match the ResourceVersion in record (${current.metadata.resourceVersion ?? ''}). The object might have been modified`);
      }
      setPodCondition(current as PodObject, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
      return current;
    });
    // The condition was our own write: a pinned resourceVersion moves with it.
    if (params.preconditions?.resourceVersion !== undefined) deleteParams = withResourceVersion(params, object.metadata.resourceVersion);
  }
  await stores.pods.delete(namespace, name, deleteParams);
}

/** Evict one pod: delete it unless its disruption budget forbids it (see the module comment). */
export async function evictPod(stores: EvictionStores, namespace: string, name: string, params: DeleteParams): Promise<void> {
  const pinnedByCaller = params.preconditions?.resourceVersion !== undefined;
  let pod: PodObject;
  for (let attempt = 0; ; attempt++) {
    pod = (await stores.pods.get(namespace, name)) as PodObject;
    if (!canIgnoreBudgets(pod)) break;
    const deleteParams = shouldEnforceResourceVersion(pod) && !pinnedByCaller ? withResourceVersion(params, pod.metadata.resourceVersion) : params;
    try {
      await markAndDelete(stores, namespace, name, deleteParams);
      return;
    } catch (e: unknown) {
      if (!isConflict(e) || pinnedByCaller || attempt + 1 >= CONFLICT_RETRIES) throw e;
    }
  }

  let unhealthyWithinBudget = false;
  let budgetName = '';
  if (stores.budgets !== undefined) {
    const budgets = await budgetsOf(stores.budgets, pod);
    if (budgets.length > 1) {
      throw new StatusError({ code: 500, message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' });
    }
    const budget = budgets[0];
    if (budget !== undefined) {
      budgetName = budget.metadata.name ?? '';
      if (!isPodReady(pod)) {
        // An unready pod is not counted as healthy: evicting it spends nothing when the budget is met anyway.
        const status = budget.status;
        const met = status !== undefined && status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0;
        unhealthyWithinBudget = budget.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' || met;
      }
      if (!unhealthyWithinBudget) await spendBudget(stores, budget, name, params.dryRun === true);
    }
  }

  const deleteParams = unhealthyWithinBudget ? withResourceVersion(params, pod.metadata.resourceVersion) : params;
  try {
    await markAndDelete(stores, namespace, name, deleteParams);
  } catch (e: unknown) {
    // The unready pod changed (perhaps turned ready): the client should try again.
    if (isConflict(e) && unhealthyWithinBudget && !pinnedByCaller) throw budgetBeingProcessed(budgetName);
    throw e;
  }
}

/** Spend one disruption of the budget: a guaranteed update of its status (checked again on every retry), or only the check on a dry run. */
async function spendBudget(stores: EvictionStores, budget: BudgetObject, podName: string, dryRun: boolean): Promise<void> {
  const namespace = budget.metadata.namespace ?? '';
  const name = budget.metadata.name ?? '';
  if (dryRun || stores.budgetStatus === undefined) {
    spendDisruption(budget, podName);
    return;
  }
  await stores.budgetStatus.update(namespace, name, (current) => {
    if (current === undefined) throw notFound({ group: 'policy', resource: 'poddisruptionbudgets' }, name);
    return spendDisruption(current as BudgetObject, podName);
  });
}

const createEviction: VerbHandler = async (ctx, t) => {
  const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
  const eviction = await readObject(ctx, { group: 'policy', version: 'v1', kind: 'Eviction' });
  const ns = eviction.metadata.namespace;
  if (ns !== undefined && ns !== '' && ns !== t.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if ((eviction.metadata.name ?? '') !== t.name) throw badRequest('name in URL does not match name in Eviction object');
  const params = evictionDeleteParams(eviction.deleteOptions, parseDryRun(ctx.query, 'CreateOptions'));
  const stores: EvictionStores = {
    pods: t.store,
    ...optional('podStatus', t.lookup?.('', 'v1', 'pods', 'status')),
    ...optional('budgets', t.lookup?.('policy', 'v1', 'poddisruptionbudgets')),
    ...optional('budgetStatus', t.lookup?.('policy', 'v1', 'poddisruptionbudgets', 'status')),
  };
  await evictPod(stores, t.namespace, t.name, params);
  writeObject(ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, format);
};

const optional = <K extends string>(key: K, store: GenericStore | undefined): Partial<Record<K, GenericStore>> =>
  (store === undefined ? {} : { [key]: store }) as Partial<Record<K, GenericStore>>;

export const evictionHandlers: Readonly<Record<string, VerbHandler>> = { create: createEviction };
