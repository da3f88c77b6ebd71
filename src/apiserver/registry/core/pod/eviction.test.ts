import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isNotFound, StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import type { GenericStore } from '../../generic/store.js';
import { Registry } from '../../registry.js';
import { evictPod, type EvictionStores } from './eviction.js';

type BudgetStatus = NonNullable<PodDisruptionBudget['status']>;

describe('pods/eviction and disruption budgets', () => {
  let registry: Registry;
  let stores: EvictionStores & { budgets: GenericStore; budgetStatus: GenericStore; podStatus: GenericStore };

  beforeEach(async () => {
    registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
    for (const name of ['default', 'other']) await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const sub = (group: string, resource: string, name: string): GenericStore => registry.lookup(group, 'v1', resource)!.subresources.get(name)!.store;
    stores = {
      pods: registry.store('', 'v1', 'pods'),
      podStatus: sub('', 'pods', 'status'),
      budgets: registry.store('policy', 'v1', 'poddisruptionbudgets'),
      budgetStatus: sub('policy', 'poddisruptionbudgets', 'status'),
    };
  });

  /** A pod with the given phase and readiness; bound to a node when `node` is given (graceful deletion). */
  async function pod(name: string, options: { phase?: string; ready?: boolean; node?: string; labels?: Record<string, string> } = {}): Promise<void> {
    await stores.pods.create('default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: options.labels ?? { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }], ...(options.node !== undefined ? { nodeName: options.node } : {}) },
    });
    await stores.podStatus.update('default', name, (current) => ({
      ...current!,
      status: {
        phase: options.phase ?? 'Running',
        conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
      },
    }));
  }

  async function budget(name: string, status: Partial<BudgetStatus>, options: { namespace?: string; selector?: Record<string, string>; policy?: string } = {}): Promise<void> {
    const namespace = options.namespace ?? 'default';
    await stores.budgets.create(namespace, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name },
      spec: { minAvailable: 1, selector: { matchLabels: options.selector ?? { app: 'web' } }, ...(options.policy !== undefined ? { unhealthyPodEvictionPolicy: options.policy } : {}) },
    });
    await stores.budgetStatus.update(namespace, name, (current) => ({
      ...current!,
      status: { observedGeneration: 1, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0, ...status },
    }));
  }

  const budgetStatus = async (name: string): Promise<BudgetStatus> => ((await stores.budgets.get('default', name)) as KubeObject & PodDisruptionBudget).status!;
  const exists = async (name: string): Promise<boolean> =>
    stores.pods.get('default', name).then(
      () => true,
      (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
    );
  const statusOf = (e: unknown): StatusError['status'] => {
    assert.ok(e instanceof StatusError, String(e));
    return e.status;
  };

  it('evicts a pod no budget selects', async () => {
    await pod('a');
    await budget('other-app', {}, { selector: { app: 'db' } });
    await budget('elsewhere', {}, { namespace: 'other' });
    await evictPod(stores, 'default', 'a', {});
    assert.equal(await exists('a'), false);
  });

  it('refuses with 429 and upstream message when the budget allows no disruption', async () => {
    await pod('a');
    await budget('web', { currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 });
    await assert.rejects(evictPod(stores, 'default', 'a', {}), (e: unknown) => {
      const s = statusOf(e);
      assert.equal(s.code, 429);
      assert.equal(s.reason, 'TooManyRequests');
      assert.equal(s.message, "Cannot evict pod as it would violate the pod's disruption budget.");
      assert.deepEqual(s.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' }]);
      assert.equal(s.details?.retryAfterSeconds, 0);
      return true;
    });
    assert.equal(await exists('a'), true);
  });

  it('spends one disruption: decrements, records the pod, flips the condition, then deletes', async () => {
    await pod('a');
    await budget('web', { currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1 });
    await evictPod(stores, 'default', 'a', {});
    assert.equal(await exists('a'), false);
    const status = await budgetStatus('web');
    assert.equal(status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(status.disruptedPods ?? {}), ['a']);
    const condition = status.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.reason, 'InsufficientPods');
  });

  it('answers 429 "still being processed" while the budget status is behind its generation', async () => {
    await pod('a');
    await budget('web', { observedGeneration: 0, disruptionsAllowed: 3 });
    await assert.rejects(evictPod(stores, 'default', 'a', {}), (e: unknown) => {
      const s = statusOf(e);
      assert.equal(s.code, 429);
      assert.equal(s.details?.retryAfterSeconds, 10);
      assert.deepEqual(s.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }]);
      return true;
    });
  });

  it('refuses a pod two budgets select with a 500', async () => {
    await pod('a');
    await budget('one', { disruptionsAllowed: 1 });
    await budget('two', { disruptionsAllowed: 1 });
    await assert.rejects(evictPod(stores, 'default', 'a', {}), (e: unknown) => {
      const s = statusOf(e);
      assert.equal(s.code, 500);
      assert.equal(s.message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
      return true;
    });
    assert.equal(await exists('a'), true);
  });

  it('refuses a negative budget (403) and an overfull disruptedPods map', async () => {
    await pod('a');
    await budget('web', { disruptionsAllowed: -1 });
    await assert.rejects(evictPod(stores, 'default', 'a', {}), (e: unknown) => {
      assert.equal(statusOf(e).code, 403);
      assert.match(statusOf(e).message ?? '', /pdb disruptions allowed is negative/);
      return true;
    });
    const disruptedPods = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`p${i}`, '2026-01-01T00:00:00Z']));
    await stores.budgetStatus.update('default', 'web', (c) => ({ ...c!, status: { ...(c!.status as object), disruptionsAllowed: 1, disruptedPods } }));
    await assert.rejects(evictPod(stores, 'default', 'a', {}), (e: unknown) => {
      assert.match(statusOf(e).message ?? '', /DisruptedPods map too big/);
      return true;
    });
  });

  it('deletes pending, finished and terminating pods without looking at budgets', async () => {
    await budget('web', { disruptionsAllowed: 0 });
    await pod('pending', { phase: 'Pending' });
    await pod('done', { phase: 'Succeeded' });
    await evictPod(stores, 'default', 'pending', {});
    await evictPod(stores, 'default', 'done', {});
    assert.equal(await exists('pending'), false);
    assert.equal(await exists('done'), false);
    assert.equal((await budgetStatus('web')).disruptionsAllowed, 0);
  });

  it('lets an unready pod go without spending the budget when the budget is met', async () => {
    await pod('sick', { ready: false });
    await budget('web', { currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 });
    await evictPod(stores, 'default', 'sick', {});
    assert.equal(await exists('sick'), false);
    assert.deepEqual((await budgetStatus('web')).disruptedPods, undefined);
  });

  it('unhealthyPodEvictionPolicy: IfHealthyBudget refuses an unready pod of an unmet budget; AlwaysAllow evicts it', async () => {
    await pod('sick', { ready: false });
    await budget('web', { currentHealthy: 0, desiredHealthy: 2, disruptionsAllowed: 0 }, { policy: 'IfHealthyBudget' });
    await assert.rejects(evictPod(stores, 'default', 'sick', {}), (e: unknown) => statusOf(e).code === 429);
    await stores.budgets.update('default', 'web', (c) => {
      const next = structuredClone(c!) as KubeObject & PodDisruptionBudget;
      next.spec!.unhealthyPodEvictionPolicy = 'AlwaysAllow';
      return next;
    });
    // The spec change makes the status stale until the controller observes it; pretend it has.
    await stores.budgetStatus.update('default', 'web', (c) => ({ ...c!, status: { ...(c!.status as object), observedGeneration: 2 } }));
    await evictPod(stores, 'default', 'sick', {});
    assert.equal(await exists('sick'), false);
  });

  it('a dry run checks the budget but changes nothing', async () => {
    await pod('a');
    await budget('web', { disruptionsAllowed: 1 });
    await evictPod(stores, 'default', 'a', { dryRun: true });
    assert.equal(await exists('a'), true);
    assert.equal((await budgetStatus('web')).disruptionsAllowed, 1);
  });

  it('marks a bound pod with the DisruptionTarget condition and deletes it gracefully', async () => {
    await pod('a', { node: 'n1' });
    await evictPod(stores, 'default', 'a', {});
    const marked = (await stores.pods.get('default', 'a')) as KubeObject & Pod;
    assert.ok(marked.metadata.deletionTimestamp !== undefined);
    const condition = marked.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.equal(condition?.status, 'True');
    assert.equal(condition?.reason, 'EvictionByEvictionAPI');
    assert.equal(condition?.message, 'Eviction API: evicting');
  });

  it('honours a stale resourceVersion precondition with a conflict and no retry', async () => {
    await pod('a');
    await assert.rejects(evictPod(stores, 'default', 'a', { preconditions: { resourceVersion: '1' } }), (e: unknown) => {
      assert.equal(statusOf(e).code, 409);
      assert.match(statusOf(e).message ?? '', /the ResourceVersion in the precondition \(1\) does not match/);
      return true;
    });
    assert.equal(await exists('a'), true);
  });

  it('a pod that does not exist is a 404', async () => {
    await assert.rejects(evictPod(stores, 'default', 'ghost', {}), (e: unknown) => isNotFound(e));
  });
});
