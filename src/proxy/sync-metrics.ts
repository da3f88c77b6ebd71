/**
 * The proxy's metrics: upstream's sync metrics (pkg/proxy/metrics) by their
 * names, and ours for the EndpointSlice revisions in effect, so that a test
 * or an operator can tell which slice revision the node applies.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SyncMetrics {
  readonly syncDuration: Histogram;
  readonly lastSyncTimestamp: Gauge;
  readonly sliceRevisionsApplied: Counter;
  readonly sliceResourceVersion: Gauge<'slice'>;
  readonly syncProblems: Gauge;
}

/** Upstream's buckets for kubeproxy_sync_proxy_rules_duration_seconds: 1 ms doubling, 15 buckets. */
const SYNC_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

export function newSyncMetrics(registry: Registry): SyncMetrics {
  return {
    syncDuration: new Histogram({
      name: 'kubeproxy_sync_proxy_rules_duration_seconds',
      help: 'SyncProxyRules latency in seconds',
      buckets: SYNC_BUCKETS,
      registers: [registry],
    }),
    lastSyncTimestamp: new Gauge({
      name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
      help: 'The last time proxy rules were successfully synced',
      registers: [registry],
    }),
    sliceRevisionsApplied: new Counter({
      name: 'k8ts_proxy_endpointslice_revisions_applied_total',
      help: 'EndpointSlice revisions (new or changed resourceVersions) in effect on the node after a sync',
      registers: [registry],
    }),
    sliceResourceVersion: new Gauge({
      name: 'k8ts_proxy_endpointslice_applied_resource_version',
      help: 'The resourceVersion of each EndpointSlice in effect on the node',
      labelNames: ['slice'],
      registers: [registry],
    }),
    syncProblems: new Gauge({
      name: 'k8ts_proxy_sync_problems',
      help: 'Problems with single Services in the last sync (an address taken, a rule refused)',
      registers: [registry],
    }),
  };
}
