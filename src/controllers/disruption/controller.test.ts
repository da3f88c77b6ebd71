import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { DEPLOYMENTS, POD_DISRUPTION_BUDGETS, PODS, REPLICA_SETS, STATEFUL_SETS } from '../../client/rest/resources.js';
import { formatTime, type KubeObject } from '../../machinery/meta.js';
import { conflict, serviceUnavailable } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { disruptionController } from './controller.js';

type BudgetObject = KubeObject & PodDisruptionBudget;

const owner = (kind: string, name: string, uid: string) => [{ apiVersion: 'apps/v1', kind, name, uid, controller: true }];
const pod = (name: string, ready: boolean, options: { owner?: ReturnType<typeof owner>; labels?: Record<string, string> } = {}): KubeObject & Pod => ({
  metadata: { name, namespace: 'default', labels: options.labels ?? { app: 'web' }, ...(options.owner ? { ownerReferences: options.owner } : {}) },
  spec: { containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const budget = (name: string, spec: Partial<NonNullable<PodDisruptionBudget['spec']>>): BudgetObject => ({
  metadata: { name, namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
});

describe('disruption controller', () => {
  let t: TestContext;
  afterEach(() => t?.stop());

  async function run(): Promise<void> {
    await disruptionController.start(t.ctx);
    t.start();
  }
  const statusOf = async (name: string): Promise<NonNullable<PodDisruptionBudget['status']> | undefined> =>
    (await t.client.resource<BudgetObject>(POD_DISRUPTION_BUDGETS).get(name, { namespace: 'default' })).status;
  const statusSettles = (name: string, check: (s: NonNullable<PodDisruptionBudget['status']>) => boolean) =>
    waitFor(async () => {
      const s = await statusOf(name);
      return s !== undefined && check(s);
    });

  it('minAvailable as an integer: healthy pods beyond it may be disrupted; the condition says so', async () => {
    t = newTestContext();
    t.client.seed(PODS, [pod('a', true), pod('b', true), pod('c', false), pod('other', true, { labels: { app: 'db' } })]);
    t.client.seed(POD_DISRUPTION_BUDGETS, [budget('web', { minAvailable: 1 })]);
    await run();
    await statusSettles('web', (s) => s.observedGeneration === 1);
    const s = (await statusOf('web'))!;
    assert.deepEqual(
      { currentHealthy: s.currentHealthy, desiredHealthy: s.desiredHealthy, expectedPods: s.expectedPods, disruptionsAllowed: s.disruptionsAllowed },
      { currentHealthy: 2, desiredHealthy: 1, expectedPods: 3, disruptionsAllowed: 1 },
    );
    const condition = s.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.equal(condition?.status, 'True');
    assert.equal(condition?.reason, 'SufficientPods');
    // A pod turning unready takes the allowance away.
    const b = await t.client.resource<KubeObject & Pod>(PODS).get('b', { namespace: 'default' });
    await t.client.resource<KubeObject & Pod>(PODS).updateStatus({ ...b, status: { ...b.status, conditions: [{ type: 'Ready', status: 'False' }] } });
    await statusSettles('web', (st) => st.currentHealthy === 1 && st.disruptionsAllowed === 0);
    const after = (await statusOf('web'))!.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.equal(after?.reason, 'InsufficientPods');
    assert.equal(after?.status, 'False');
  });

  it('percentages and maxUnavailable count the scale of the pods\' controllers (Deployment through its ReplicaSet, StatefulSet), rounding up', async () => {
    t = newTestContext();
    const deployment: KubeObject & Deployment = { metadata: { name: 'web', namespace: 'default', uid: 'd1' }, spec: { replicas: 5, selector: {}, template: {} } };
    const rs: KubeObject & ReplicaSet = { metadata: { name: 'web-1', namespace: 'default', uid: 'rs1', ownerReferences: owner('Deployment', 'web', 'd1') }, spec: { replicas: 3, selector: {} } };
    const ss: KubeObject & StatefulSet = { metadata: { name: 'db', namespace: 'default', uid: 'ss1' }, spec: { replicas: 2, selector: {}, serviceName: 'db', template: {} } };
    t.client.seed(DEPLOYMENTS, [deployment]);
    t.client.seed(REPLICA_SETS, [rs]);
    t.client.seed(STATEFUL_SETS, [ss]);
    t.client.seed(PODS, [
      pod('web-1-a', true, { owner: owner('ReplicaSet', 'web-1', 'rs1') }),
      pod('web-1-b', true, { owner: owner('ReplicaSet', 'web-1', 'rs1') }),
      pod('web-1-c', true, { owner: owner('ReplicaSet', 'web-1', 'rs1') }),
      pod('db-0', true, { owner: owner('StatefulSet', 'db', 'ss1') }),
    ]);
    t.client.seed(POD_DISRUPTION_BUDGETS, [budget('half', { minAvailable: '50%' }), budget('one-down', { maxUnavailable: 1 }), budget('pct-down', { maxUnavailable: '30%' })]);
    await run();
    await statusSettles('half', (s) => s.observedGeneration === 1);
    await statusSettles('one-down', (s) => s.observedGeneration === 1);
    await statusSettles('pct-down', (s) => s.observedGeneration === 1);
    const pick = (s: NonNullable<PodDisruptionBudget['status']> | undefined) => [s?.expectedPods, s?.desiredHealthy, s?.currentHealthy, s?.disruptionsAllowed];
    assert.deepEqual(pick(await statusOf('half')), [7, 4, 4, 0], '50% of 5 + 2 = 3.5 → 4');
    assert.deepEqual(pick(await statusOf('one-down')), [7, 6, 4, 0]);
    assert.deepEqual(pick(await statusOf('pct-down')), [7, 4, 4, 0], '30% of 7 = 2.1 → 3 unavailable');
  });

  it('a pod whose controller cannot be found puts the budget in its safe state (SyncFailed)', async () => {
    t = newTestContext();
    t.client.seed(PODS, [pod('orphaned', true, { owner: owner('ReplicaSet', 'gone', 'x') })]);
    t.client.seed(POD_DISRUPTION_BUDGETS, [budget('web', { maxUnavailable: 1 })]);
    await run();
    await statusSettles('web', (s) => (s.conditions ?? []).length > 0);
    const s = (await statusOf('web'))!;
    assert.equal(s.disruptionsAllowed, 0);
    const condition = s.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.equal(condition?.reason, 'SyncFailed');
    assert.equal(condition?.message, 'found no controllers for pod "orphaned"');
    assert.ok(t.events.some((e) => e.reason === 'CalculateExpectedPodCountFailed' && e.message === 'Failed to calculate the number of expected pods: found no controllers for pod "orphaned"'));
  });

  it('an invalid selector is a NoPods warning and the safe state', async () => {
    t = newTestContext();
    t.client.seed(POD_DISRUPTION_BUDGETS, [budget('bad', { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] } })]);
    await run();
    await statusSettles('bad', (s) => (s.conditions ?? []).some((c) => c.reason === 'SyncFailed'));
    assert.ok(t.events.some((e) => e.reason === 'NoPods' && e.type === 'Warning' && e.message.startsWith('Failed to get pods: ')));
  });

  it('unmanaged pods with a percentage give an UnmanagedPods warning; no pods a NoPods event', async () => {
    t = newTestContext();
    t.client.seed(PODS, [pod('bare', true)]);
    t.client.seed(POD_DISRUPTION_BUDGETS, [budget('web', { minAvailable: '50%' }), budget('none', { minAvailable: 1, selector: { matchLabels: { app: 'nothing' } } })]);
    await run();
    await statusSettles('web', (s) => s.observedGeneration === 1);
    await statusSettles('none', (s) => s.observedGeneration === 1);
    assert.ok(t.events.some((e) => e.reason === 'UnmanagedPods' && e.type === 'Warning' && e.component === 'controllermanager'));
    assert.ok(t.events.some((e) => e.reason === 'NoPods' && e.message === 'No matching pods found' && e.object.name === 'none'));
    assert.equal((await statusOf('none'))?.disruptionsAllowed, 0);
  });

  it('keeps the pods the eviction subresource approved out of the healthy count until the deletion timeout, then drops them', async () => {
    t = newTestContext();
    const now = Date.now();
    t.client.seed(PODS, [pod('a', true), pod('b', true), pod('c', true)]);
    const seeded = budget('web', { minAvailable: 1 });
    t.client.seed(POD_DISRUPTION_BUDGETS, [
      {
        ...seeded,
        status: {
          currentHealthy: 3,
          desiredHealthy: 1,
          expectedPods: 3,
          disruptionsAllowed: 0,
          observedGeneration: 1,
          disruptedPods: { a: formatTime(new Date(now - 1000)), b: formatTime(new Date(now - 3 * 60_000)), gone: formatTime(new Date(now)) },
        },
      } as BudgetObject,
    ]);
    await run();
    await statusSettles('web', (s) => s.currentHealthy === 2);
    const s = (await statusOf('web'))!;
    assert.deepEqual(Object.keys(s.disruptedPods ?? {}), ['a'], 'b timed out, gone is gone');
    assert.equal(s.disruptionsAllowed, 1);
  });

  it('a conflict is retried without the fail-safe; a failed write is retried', async () => {
    t = newTestContext();
    t.client.seed(PODS, [pod('a', true), pod('b', true)]);
    t.client.seed(POD_DISRUPTION_BUDGETS, [budget('web', { minAvailable: 1 })]);
    t.client.injectError('update', 'poddisruptionbudgets/status', conflict({ group: 'policy', resource: 'poddisruptionbudgets' }, 'web'));
    await run();
    await statusSettles('web', (s) => s.disruptionsAllowed === 1);
    assert.ok(!(await statusOf('web'))!.conditions?.some((c) => c.reason === 'SyncFailed'));
    t.client.injectError('update', 'poddisruptionbudgets/status', serviceUnavailable('down'), 2);
    await t.client.resource(PODS).create(pod('c', true));
    await statusSettles('web', (s) => s.disruptionsAllowed === 2);
  });
});
