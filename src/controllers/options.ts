/**
 * Upstream kube-controller-manager's defaults for every option a controller
 * reads; `k8ts controller-manager` maps each flag onto this object and tests
 * override what they need to shorten.
 */
import type { ControllerManagerOptions } from './context.js';

/** Upstream's --concurrent-*-syncs defaults by controller name; 5 for any other. */
const CONCURRENT_SYNCS: Readonly<Record<string, number>> = {
  deployment: 5,
  replicaset: 5,
  'garbage-collector': 20,
  namespace: 10,
  endpoints: 5,
  endpointslice: 5,
  serviceaccount: 5,
  daemonset: 2,
  job: 5,
  cronjob: 5,
  statefulset: 5,
  disruption: 1,
  resourcequota: 5,
};

export function defaultControllerManagerOptions(overrides: Partial<ControllerManagerOptions> = {}): ControllerManagerOptions {
  return {
    nodeMonitorGracePeriodMs: 40_000,
    nodeMonitorPeriodMs: 5_000,
    nodeStartupGracePeriodMs: 60_000,
    nodeEvictionRate: 0.1,
    secondaryNodeEvictionRate: 0.01,
    unhealthyZoneThreshold: 0.55,
    largeClusterSizeThreshold: 50,
    clusterCidr: '127.244.0.0/16',
    nodeCidrMaskSize: 24,
    allocateNodeCidrs: true,
    minResyncPeriodMs: 12 * 3600_000,
    namespaceSyncPeriodMs: 5 * 60_000,
    resourceQuotaSyncPeriodMs: 5 * 60_000,
    terminatedPodGcThreshold: 12_500,
    clusterSigningDurationMs: 8760 * 3600_000,
    concurrentSyncs: (name) => CONCURRENT_SYNCS[name] ?? 5,
    ...overrides,
  };
}
