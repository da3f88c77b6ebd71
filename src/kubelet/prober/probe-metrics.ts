/**
 * The prober's metrics with upstream's names and labels
 * (pkg/kubelet/prober/prober_manager.go): prober_probe_total by result
 * (successful, failed, unknown) and prober_probe_duration_seconds for probes
 * that did not fail. A worker's series go when the worker stops, as upstream's.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ProbeResult } from './prober.js';

export interface ProbeSeries {
  /** 'Liveness', 'Readiness' or 'Startup'. */
  readonly probeType: string;
  readonly container: string;
  readonly pod: string;
  readonly namespace: string;
  readonly podUid: string;
}

export interface ProbeMetrics {
  observe(series: ProbeSeries, result: ProbeResult, seconds: number): void;
  forget(series: ProbeSeries): void;
}

export const NO_PROBE_METRICS: ProbeMetrics = { observe: () => undefined, forget: () => undefined };

const RESULT_LABELS: Readonly<Record<ProbeResult, string>> = { success: 'successful', failure: 'failed', unknown: 'unknown' };

export function newProbeMetrics(registry: Registry): ProbeMetrics {
  for (const name of ['prober_probe_total', 'prober_probe_duration_seconds']) {
    if (registry.getSingleMetric(name) !== undefined) registry.removeSingleMetric(name);
  }
  const total = new Counter({
    name: 'prober_probe_total',
    help: 'Cumulative number of a liveness, readiness or startup probe for a container by result.',
    labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'prober_probe_duration_seconds',
    help: 'Duration in seconds for a probe response.',
    labelNames: ['probe_type', 'container', 'pod', 'namespace'] as const,
    registers: [registry],
  });
  const base = (s: ProbeSeries) => ({ probe_type: s.probeType, container: s.container, pod: s.pod, namespace: s.namespace });
  return {
    observe(series, result, seconds) {
      total.inc({ ...base(series), pod_uid: series.podUid, result: RESULT_LABELS[result] });
      if (result !== 'failure') duration.observe(base(series), seconds);
    },
    forget(series) {
      for (const result of Object.values(RESULT_LABELS)) total.remove({ ...base(series), pod_uid: series.podUid, result });
      duration.remove(base(series));
    },
  };
}
