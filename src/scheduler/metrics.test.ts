import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { newSchedulerMetrics } from './metrics.js';

describe('scheduler metrics', () => {
  it('exposes upstream names and labels, reading pending pods when scraped', async () => {
    const registry = new Registry();
    const metrics = newSchedulerMetrics(registry, { pendingPods: () => ({ active: 3, backoff: 2, unschedulable: 1, gated: 4 }) });
    metrics.attempt('scheduled', 'default-scheduler', 0.004);
    metrics.attempt('unschedulable', 'default-scheduler', 0.002);
    metrics.podSchedulingAttempts(2);
    metrics.preemptionAttempt();
    metrics.extensionPoint('Filter', 'Success', 'default-scheduler', 0.0003);
    const text = await registry.metrics();
    assert.match(text, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 1/);
    assert.match(text, /scheduler_scheduling_attempt_duration_seconds_bucket\{le="0.004",result="scheduled",profile="default-scheduler"\} 1/);
    assert.match(text, /scheduler_pending_pods\{queue="active"\} 3/);
    assert.match(text, /scheduler_pending_pods\{queue="gated"\} 4/);
    assert.match(text, /scheduler_pod_scheduling_attempts_bucket\{le="2"\} 1/);
    assert.match(text, /scheduler_preemption_attempts_total 1/);
    assert.match(text, /scheduler_framework_extension_point_duration_seconds_count\{extension_point="Filter",status="Success",profile="default-scheduler"\} 1/);
  });

  it('can be registered again on the same registry (a new scheduler replaces the old one\'s)', async () => {
    const registry = new Registry();
    newSchedulerMetrics(registry, { pendingPods: () => ({ active: 1, backoff: 0, unschedulable: 0, gated: 0 }) });
    newSchedulerMetrics(registry, { pendingPods: () => ({ active: 7, backoff: 0, unschedulable: 0, gated: 0 }) });
    assert.match(await registry.metrics(), /scheduler_pending_pods\{queue="active"\} 7/);
  });
});
