/**
 * The work queue metrics of upstream's component-base, in a prom-client
 * Registry: workqueue_depth, workqueue_adds_total, workqueue_retries_total,
 * workqueue_queue_duration_seconds and workqueue_work_duration_seconds, each
 * labelled by the queue's name.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricsProviderFor, type WorkQueueMetricsProvider } from './metrics.js';

/** Upstream's buckets: 10^-8 … 10^1 seconds. */
const BUCKETS = Array.from({ length: 10 }, (_, i) => 10 ** (i - 8));

export function prometheusWorkQueueMetrics(registry: Registry): WorkQueueMetricsProvider {
  const labelNames = ['name'] as const;
  const registers = [registry];
  const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers });
  const adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames, registers });
  const retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames, registers });
  const queued = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested.',
    labelNames,
    buckets: BUCKETS,
    registers,
  });
  const worked = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames,
    buckets: BUCKETS,
    registers,
  });
  return metricsProviderFor({
    depth: (name, delta) => depth.inc({ name }, delta),
    added: (name) => adds.inc({ name }),
    retried: (name) => retries.inc({ name }),
    queued: (name, seconds) => queued.observe({ name }, seconds),
    worked: (name, seconds) => worked.observe({ name }, seconds),
  });
}
