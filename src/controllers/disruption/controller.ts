/**
 * The disruption controller (upstream's `disruption`): keeps each
 * PodDisruptionBudget's status (expectedPods, desiredHealthy, currentHealthy,
 * disruptionsAllowed, disruptedPods, observedGeneration and the
 * DisruptionAllowed condition) in step with its pods, so that the API
 * server's eviction subresource knows how many pods it may evict. A budget
 * whose status cannot be computed (a pod whose controller is gone, a bad
 * percentage) is put in a safe state: no disruption allowed, condition reason
 * SyncFailed with the error as message.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import {
  DISRUPTION_ALLOWED_CONDITION,
  INSUFFICIENT_PODS_REASON,
  setStatusCondition,
  SUFFICIENT_PODS_REASON,
  SYNC_FAILED_REASON,
  updateDisruptionAllowedCondition,
} from '../../api/policy/v1/disruption-allowed.js';
import { NAMESPACE_INDEX, objectKey, type Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { ResourceClient } from '../../client/rest/interface.js';
import { DEPLOYMENTS, POD_DISRUPTION_BUDGETS, PODS, REPLICA_SETS, STATEFUL_SETS } from '../../client/rest/resources.js';
import { deepCopy, jsonEqual, type KubeObject } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { isConflict } from '../../machinery/status.js';
import type { ControllerContext, ControllerDefinition } from '../context.js';
import { startReconcileLoop, type ReconcileResult } from '../reconcile-loop.js';
import { countHealthyPods, disruptedPodMap, disruptionsAllowed, expectedPodCount } from './budget-math.js';
import { StaleDisruptionCleaner, staleDisruptionIn } from './stale-disruption.js';

export type PodObject = KubeObject & Pod;
export type BudgetObject = KubeObject & PodDisruptionBudget;
type ReplicaSetObject = KubeObject & ReplicaSet;
type DeploymentObject = KubeObject & Deployment;
type StatefulSetObject = KubeObject & StatefulSet;

export interface DisruptionListers {
  readonly budgets: Indexer<BudgetObject>;
  readonly pods: Indexer<PodObject>;
  readonly replicaSets: Indexer<ReplicaSetObject>;
  readonly deployments: Indexer<DeploymentObject>;
  readonly statefulSets: Indexer<StatefulSetObject>;
}

const controllerOf = (object: KubeObject): OwnerReference | undefined => object.metadata.ownerReferences?.find((o) => o.controller === true);

/** The pods of the budget's namespace its selector matches (an absent selector matches none, an empty one all). */
export function podsOfBudget(pods: Indexer<PodObject>, budget: BudgetObject): PodObject[] {
  const selector = labelSelectorFromObject(budget.spec?.selector);
  return pods.byIndex(NAMESPACE_INDEX, budget.metadata.namespace ?? '').filter((p) => selector.matches(p.metadata.labels));
}

/** The budgets of a pod's namespace whose selector matches its labels. */
export function budgetsOfPod(budgets: Indexer<BudgetObject>, pod: PodObject): BudgetObject[] {
  return budgets.byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '').filter((b) => {
    try {
      return labelSelectorFromObject(b.spec?.selector).matches(pod.metadata.labels);
    } catch {
      return false;
    }
  });
}

/** Upstream's ConditionsAreUpToDate. */
function conditionsUpToDate(budget: BudgetObject): boolean {
  const status = budget.status;
  const condition = status?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
  if (status === undefined || condition === undefined || status.observedGeneration !== budget.metadata.generation) return false;
  return status.disruptionsAllowed > 0
    ? condition.status === 'True' && condition.reason === SUFFICIENT_PODS_REASON
    : condition.status === 'False' && condition.reason === INSUFFICIENT_PODS_REASON;
}

export interface DisruptionControllerDeps {
  readonly listers: DisruptionListers;
  readonly budgetClient: ResourceClient<BudgetObject>;
  readonly recorder: EventRecorder;
  readonly now?: () => number;
}

export class DisruptionController {
  private readonly now: () => number;

  constructor(private readonly deps: DisruptionControllerDeps) {
    this.now = deps.now ?? Date.now;
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const budget = this.deps.listers.budgets.get(key);
    if (budget === undefined) return;
    try {
      return await this.trySync(budget);
    } catch (e: unknown) {
      // A conflict only means our copy was stale: retry without the fail-safe.
      if (isConflict(e)) throw e;
      await this.failSafe(budget, e);
      return;
    }
  }

  /** Upstream's getExpectedScale: the sum of the scale of the pods' controllers; pods without one are reported. */
  private expectedScale(pods: readonly PodObject[]): { expectedCount: number; unmanagedPods: string[] } {
    const scales = new Map<string, number>();
    const unmanagedPods: string[] = [];
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (ref === undefined) {
        unmanagedPods.push(pod.metadata.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = this.controllerScale(ref, pod.metadata.namespace ?? '');
      if (found === undefined) throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
      scales.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const scale of scales.values()) expectedCount += scale;
    return { expectedCount, unmanagedPods };
  }

  /** The finders of upstream: a ReplicaSet (or the Deployment that controls it) or a StatefulSet, matched by uid. */
  private controllerScale(ref: OwnerReference, namespace: string): { uid: string; scale: number } | undefined {
    const group = ref.apiVersion.split('/')[0];
    if (group !== 'apps') return undefined;
    const { listers } = this.deps;
    if (ref.kind === 'ReplicaSet') {
      const rs = listers.replicaSets.get(`${namespace}/${ref.name}`);
      if (rs === undefined || rs.metadata.uid !== ref.uid) return undefined;
      const owner = controllerOf(rs);
      if (owner?.kind === 'Deployment' && owner.apiVersion.startsWith('apps/')) {
        const deployment = listers.deployments.get(`${namespace}/${owner.name}`);
        if (deployment === undefined || deployment.metadata.uid !== owner.uid) return undefined;
        return { uid: owner.uid, scale: deployment.spec?.replicas ?? 1 };
      }
      return { uid: ref.uid, scale: rs.spec?.replicas ?? 1 };
    }
    if (ref.kind === 'StatefulSet') {
      const ss = listers.statefulSets.get(`${namespace}/${ref.name}`);
      if (ss === undefined || ss.metadata.uid !== ref.uid) return undefined;
      return { uid: ref.uid, scale: ss.spec?.replicas ?? 1 };
    }
    return undefined;
  }

  private async trySync(budget: BudgetObject): Promise<ReconcileResult | void> {
    const { recorder } = this.deps;
    let pods: PodObject[];
    try {
      pods = podsOfBudget(this.deps.listers.pods, budget);
    } catch (e: unknown) {
      recorder.event(budget, 'Warning', 'NoPods', `Failed to get pods: ${(e as Error).message}`);
      throw e;
    }
    if (pods.length === 0) recorder.event(budget, 'Normal', 'NoPods', 'No matching pods found');
    let expected;
    try {
      expected = await expectedPodCount(budget, pods, async () => this.expectedScale(pods));
    } catch (e: unknown) {
      recorder.event(budget, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(e as Error).message}`);
      throw e;
    }
    if (expected.unmanagedPods.length > 0) {
      recorder.event(
        budget,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${formatSelector(budget)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    }
    const now = this.now();
    const { disruptedPods, recheckAfterMs } = disruptedPodMap(pods, budget.status?.disruptedPods, now);
    const currentHealthy = countHealthyPods(pods, disruptedPods, now);
    await this.updateStatus(budget, { currentHealthy, desiredHealthy: expected.desiredHealthy, expectedPods: expected.expectedCount, disruptedPods });
    return recheckAfterMs === undefined ? undefined : { requeueAfterMs: recheckAfterMs };
  }

  private async updateStatus(
    budget: BudgetObject,
    next: { currentHealthy: number; desiredHealthy: number; expectedPods: number; disruptedPods: Record<string, string> },
  ): Promise<void> {
    const allowed = disruptionsAllowed(next.currentHealthy, next.desiredHealthy, next.expectedPods);
    const old = budget.status;
    const generation = budget.metadata.generation ?? 0;
    if (
      old !== undefined &&
      old.currentHealthy === next.currentHealthy &&
      old.desiredHealthy === next.desiredHealthy &&
      old.expectedPods === next.expectedPods &&
      old.disruptionsAllowed === allowed &&
      jsonEqual(old.disruptedPods ?? {}, next.disruptedPods) &&
      (old.observedGeneration ?? 0) === generation &&
      conditionsUpToDate(budget)
    ) {
      return;
    }
    const updated = deepCopy(budget);
    updated.status = {
      currentHealthy: next.currentHealthy,
      desiredHealthy: next.desiredHealthy,
      expectedPods: next.expectedPods,
      disruptionsAllowed: allowed,
      ...(Object.keys(next.disruptedPods).length > 0 ? { disruptedPods: next.disruptedPods } : {}),
      observedGeneration: generation,
      conditions: updated.status?.conditions ?? [],
    };
    updateDisruptionAllowedCondition(updated, new Date(this.now()));
    await this.deps.budgetClient.updateStatus(updated);
  }

  /** Upstream's failSafe: no disruption allowed, and why. */
  private async failSafe(budget: BudgetObject, error: unknown): Promise<void> {
    const updated = deepCopy(budget);
    const status = (updated.status ??= { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 });
    status.disruptionsAllowed = 0;
    setStatusCondition(
      (status.conditions ??= []),
      {
        type: DISRUPTION_ALLOWED_CONDITION,
        status: 'False',
        reason: SYNC_FAILED_REASON,
        message: error instanceof Error ? error.message : String(error),
        ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      },
      new Date(this.now()),
    );
    await this.deps.budgetClient.updateStatus(updated);
  }
}

/** The selector as Go's %v prints a *metav1.LabelSelector (roughly: `&LabelSelector{MatchLabels:map[app:web],…}`). */
function formatSelector(budget: BudgetObject): string {
  const labels = Object.entries(budget.spec?.selector?.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{},}`;
}

export const disruptionController: ControllerDefinition = {
  name: 'disruption',
  enabledByDefault: true,
  start(ctx: ControllerContext): void {
    const budgets = ctx.informers.informerFor<BudgetObject>(POD_DISRUPTION_BUDGETS);
    const pods = ctx.informers.informerFor<PodObject>(PODS);
    const controller = new DisruptionController({
      listers: {
        budgets: budgets.indexer,
        pods: pods.indexer,
        replicaSets: ctx.informers.informerFor<ReplicaSetObject>(REPLICA_SETS).indexer,
        deployments: ctx.informers.informerFor<DeploymentObject>(DEPLOYMENTS).indexer,
        statefulSets: ctx.informers.informerFor<StatefulSetObject>(STATEFUL_SETS).indexer,
      },
      budgetClient: ctx.client.resource<BudgetObject>(POD_DISRUPTION_BUDGETS),
      recorder: ctx.events.recorderFor('controllermanager'),
    });
    const loop = startReconcileLoop(ctx, { name: 'disruption', reconcile: (key) => controller.reconcile(key) });
    const cleaner = new StaleDisruptionCleaner(pods.indexer, ctx.client.resource<PodObject>(PODS));
    const staleLoop = startReconcileLoop(ctx, { name: 'stale_pod_disruption', workers: 1, reconcile: (key) => cleaner.reconcile(key) });
    const checkStale = (pod: PodObject): void => {
      if (staleDisruptionIn(pod, Date.now()) !== undefined) staleLoop.enqueue(objectKey(pod));
    };
    const enqueueBudget = (budget: BudgetObject): void => loop.enqueue(objectKey(budget));
    const enqueueForPod = (pod: PodObject): void => {
      for (const budget of budgetsOfPod(budgets.indexer, pod)) enqueueBudget(budget);
    };
    budgets.addEventHandler({ onAdd: enqueueBudget, onUpdate: (_old, b) => enqueueBudget(b), onDelete: enqueueBudget });
    pods.addEventHandler({
      onAdd: (pod) => {
        enqueueForPod(pod);
        checkStale(pod);
      },
      onUpdate: (old, pod) => {
        enqueueForPod(pod);
        checkStale(pod);
        if (!jsonEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {})) enqueueForPod(old);
      },
      onDelete: enqueueForPod,
    });
  },
};
