import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { countHealthyPods, disruptedPodMap, disruptionsAllowed, expectedPodCount, scaledValue } from './budget-math.js';

const pod = (name: string, ready: boolean, terminating = false): Pod => ({
  metadata: { name, ...(terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const budget = (spec: NonNullable<PodDisruptionBudget['spec']>): PodDisruptionBudget => ({ spec });
const scaleOf = (expectedCount: number) => async () => ({ expectedCount, unmanagedPods: [] as string[] });

describe('disruption budget math', () => {
  it('scales percentages, rounding up or down, and refuses a string that is not one', () => {
    assert.equal(scaledValue('25%', 10, true), 3);
    assert.equal(scaledValue('25%', 10, false), 2);
    assert.equal(scaledValue('50%', 3, true), 2);
    assert.equal(scaledValue(4, 10, true), 4);
    assert.throws(() => scaledValue('3', 10, true), /not a percentage/);
  });

  it('an integer minAvailable expects the selected pods', async () => {
    const pods = [pod('a', true), pod('b', true), pod('c', false)];
    assert.deepEqual(await expectedPodCount(budget({ minAvailable: 2 }), pods, scaleOf(99)), { expectedCount: 3, desiredHealthy: 2, unmanagedPods: [] });
  });

  it('a percentage minAvailable and maxUnavailable use the controllers\' scale, rounding up', async () => {
    assert.deepEqual(await expectedPodCount(budget({ minAvailable: '50%' }), [], scaleOf(5)), { expectedCount: 5, desiredHealthy: 3, unmanagedPods: [] });
    assert.deepEqual(await expectedPodCount(budget({ maxUnavailable: '30%' }), [], scaleOf(5)), { expectedCount: 5, desiredHealthy: 3, unmanagedPods: [] });
    assert.deepEqual(await expectedPodCount(budget({ maxUnavailable: 1 }), [], scaleOf(4)), { expectedCount: 4, desiredHealthy: 3, unmanagedPods: [] });
    assert.deepEqual(await expectedPodCount(budget({ maxUnavailable: 9 }), [], scaleOf(4)), { expectedCount: 4, desiredHealthy: 0, unmanagedPods: [] });
    await assert.rejects(expectedPodCount(budget({ maxUnavailable: 'x' }), [], scaleOf(4)), /not a percentage/);
  });

  it('counts ready pods that are neither terminating nor recently evicted', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    const pods = [pod('a', true), pod('b', true, true), pod('c', false), pod('d', true), pod('e', true)];
    const { disruptedPods, recheckAfterMs } = disruptedPodMap(
      pods,
      { d: '2026-01-01T00:09:30Z', e: '2026-01-01T00:07:00Z', b: '2026-01-01T00:09:00Z', gone: '2026-01-01T00:09:00Z' },
      now,
    );
    assert.deepEqual(disruptedPods, { d: '2026-01-01T00:09:30Z' }, 'e expired, b terminating, gone missing');
    assert.equal(recheckAfterMs, 90_000);
    assert.equal(countHealthyPods(pods, disruptedPods, now), 2);
    assert.deepEqual(disruptedPodMap(pods, undefined, now), { disruptedPods: {} });
  });

  it('allows the healthy surplus, never below zero, none without expected pods', () => {
    assert.equal(disruptionsAllowed(3, 2, 3), 1);
    assert.equal(disruptionsAllowed(1, 2, 3), 0);
    assert.equal(disruptionsAllowed(3, 0, 0), 0);
  });
});
