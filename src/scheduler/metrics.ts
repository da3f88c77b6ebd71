/**
 * The scheduler's metrics, with upstream's names, labels and buckets
 * (pkg/scheduler/metrics): attempts and their duration by result and
 * profile, pending pods by queue, attempts per scheduled pod, preemption
 * attempts, and the time spent at each extension point of a cycle.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type AttemptResult = 'scheduled' | 'unschedulable' | 'error';

export interface PendingPodsSource {
  pendingPods(): { active: number; backoff: number; unschedulable: number; gated: number };
}

const exponential = (start: number, factor: number, count: number): number[] => Array.from({ length: count }, (_, i) => start * factor ** i);

export interface SchedulerMetrics {
  /** One scheduling attempt ended. */
  attempt(result: AttemptResult, profile: string, seconds: number): void;
  /** A pod was bound after this many attempts. */
  podSchedulingAttempts(attempts: number): void;
  preemptionAttempt(): void;
  extensionPoint(point: string, status: string, profile: string, seconds: number): void;
}

const METRIC_NAMES = [
  'scheduler_schedule_attempts_total',
  'scheduler_scheduling_attempt_duration_seconds',
  'scheduler_pending_pods',
  'scheduler_pod_scheduling_attempts',
  'scheduler_preemption_attempts_total',
  'scheduler_framework_extension_point_duration_seconds',
];

/** Metrics that go nowhere (tests that do not look at them). */
export const NO_METRICS: SchedulerMetrics = {
  attempt: () => undefined,
  podSchedulingAttempts: () => undefined,
  preemptionAttempt: () => undefined,
  extensionPoint: () => undefined,
};

/** Register the scheduler's metrics on `registry`; scheduler_pending_pods reads `pending` when scraped. */
export function newSchedulerMetrics(registry: Registry, pending: PendingPodsSource): SchedulerMetrics {
  // A scheduler built again on the same registry (a new leadership term) replaces the metrics of the last one.
  for (const name of METRIC_NAMES) if (registry.getSingleMetric(name) !== undefined) registry.removeSingleMetric(name);
  const registers = [registry];
  const attempts = new Counter({
    name: 'scheduler_schedule_attempts_total',
    help: 'Number of attempts to schedule pods, by the result. \'unschedulable\' means a pod could not be scheduled, while \'error\' means an internal scheduler problem.',
    labelNames: ['result', 'profile'] as const,
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'scheduler_scheduling_attempt_duration_seconds',
    help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
    labelNames: ['result', 'profile'] as const,
    buckets: exponential(0.001, 2, 15),
    registers,
  });
  new Gauge({
    name: 'scheduler_pending_pods',
    help: 'Number of pending pods, by the queue type. \'active\' means number of pods in activeQ; \'backoff\' means number of pods in backoffQ; \'unschedulable\' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; \'gated\' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.',
    labelNames: ['queue'] as const,
    registers,
    collect() {
      const counts = pending.pendingPods();
      this.set({ queue: 'active' }, counts.active);
      this.set({ queue: 'backoff' }, counts.backoff);
      this.set({ queue: 'unschedulable' }, counts.unschedulable);
      this.set({ queue: 'gated' }, counts.gated);
    },
  });
  const podAttempts = new Histogram({
    name: 'scheduler_pod_scheduling_attempts',
    help: 'Number of attempts to successfully schedule a pod.',
    buckets: exponential(1, 2, 5),
    registers,
  });
  const preemptions = new Counter({ name: 'scheduler_preemption_attempts_total', help: 'Total preemption attempts in the cluster till now', registers });
  const extensionPoints = new Histogram({
    name: 'scheduler_framework_extension_point_duration_seconds',
    help: 'Latency for running all plugins of a specific extension point.',
    labelNames: ['extension_point', 'status', 'profile'] as const,
    buckets: exponential(0.0001, 2, 12),
    registers,
  });
  return {
    attempt: (result, profile, seconds) => {
      attempts.inc({ result, profile });
      attemptDuration.observe({ result, profile }, seconds);
    },
    podSchedulingAttempts: (n) => podAttempts.observe(n),
    preemptionAttempt: () => preemptions.inc(),
    extensionPoint: (extension_point, status, profile, seconds) => extensionPoints.observe({ extension_point, status, profile }, seconds),
  };
}
