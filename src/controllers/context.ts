/**
 * What a controller gets to work with, and how the manager knows it. A
 * controller reads through shared informers, writes through the client,
 * records Events, and stops when the signal aborts. It never touches storage
 * and never calls another controller (../../DESIGN.md §1): the only way one
 * controller's work reaches another is an object written through the API
 * server and seen on a watch.
 */
import type { Logger } from '../machinery/logger.js';
import type { InformerFactory } from '../client/cache/interfaces.js';
import type { EventRecorderFactory } from '../client/record/interface.js';
import type { Client } from '../client/rest/interface.js';

/** Timers and sizes, each from the upstream flag of the same meaning (defaults as upstream). */
export interface ControllerManagerOptions {
  /** --node-monitor-grace-period: a node whose Lease is older is Ready=Unknown (default 40 s). */
  readonly nodeMonitorGracePeriodMs: number;
  /** --node-monitor-period: how often node health is checked (default 5 s). */
  readonly nodeMonitorPeriodMs: number;
  /** --node-startup-grace-period: a new node may be unready this long (default 60 s). */
  readonly nodeStartupGracePeriodMs: number;
  /** --node-eviction-rate: nodes per second whose pods are evicted when a zone is healthy (default 0.1). */
  readonly nodeEvictionRate: number;
  /** --secondary-node-eviction-rate (default 0.01). */
  readonly secondaryNodeEvictionRate: number;
  /** --unhealthy-zone-threshold (default 0.55). */
  readonly unhealthyZoneThreshold: number;
  /** --large-cluster-size-threshold (default 50). */
  readonly largeClusterSizeThreshold: number;
  /** --cluster-cidr: the range node IPAM gives each node a podCIDR from. */
  readonly clusterCidr: string;
  /** --node-cidr-mask-size (default 24). */
  readonly nodeCidrMaskSize: number;
  /** --allocate-node-cidrs (default true in k8ts: pods need addresses). */
  readonly allocateNodeCidrs: boolean;
  /** --min-resync-period: informers resync every [1, 2) × this (default 12 h). */
  readonly minResyncPeriodMs: number;
  /** --namespace-sync-period (default 5 min). */
  readonly namespaceSyncPeriodMs: number;
  /** --resource-quota-sync-period: how often every quota's usage is recounted (default 5 min). */
  readonly resourceQuotaSyncPeriodMs: number;
  /** --terminated-pod-gc-threshold (default 12500). */
  readonly terminatedPodGcThreshold: number;
  /** --root-ca-file: the CA the root-ca-cert-publisher puts in every namespace's kube-root-ca.crt (none: that controller does not start). */
  readonly rootCaFile?: string;
  /** --cluster-signing-cert-file: the PEM CA certificate csrsigning issues certificates from (none: csrsigning stays idle). */
  readonly clusterSigningCertFile?: string;
  /** --cluster-signing-key-file: the PEM private key of that CA. */
  readonly clusterSigningKeyFile?: string;
  /** --cluster-signing-duration: the longest lifetime of an issued certificate (default 8760 h, one year). */
  readonly clusterSigningDurationMs: number;
  /** Workers per controller: --concurrent-deployment-syncs (5), --concurrent-replicaset-syncs (5), --concurrent-gc-syncs (20), … by controller name. */
  readonly concurrentSyncs: (controllerName: string) => number;
}

export interface ControllerContext {
  readonly client: Client;
  readonly informers: InformerFactory;
  readonly events: EventRecorderFactory;
  readonly logger: Logger;
  readonly options: ControllerManagerOptions;
  /** Aborts when the controller must stop (shutdown or lost leadership). */
  readonly signal: AbortSignal;
  /**
   * Called after each reconcile of a key ends, whatever its outcome, with the
   * loop's name: tests wait on it to know a controller has looked again
   * (rather than sleeping to see that it did nothing).
   */
  readonly onReconciled?: (loop: string, key: string) => void;
}

/** A controller the manager can start by name (--controllers=*,-name as upstream). */
export interface ControllerDefinition {
  /** Upstream's name: `replicaset`, `deployment`, `garbage-collector`, `namespace`, `nodelifecycle`, … */
  readonly name: string;
  readonly enabledByDefault: boolean;
  /**
   * Register informers and handlers, start workers, and return. The informers
   * are started and synced by the manager after every controller's start; the
   * controller's workers wait on ctx.informers.waitForCacheSync before their
   * first reconcile. Everything stops when ctx.signal aborts.
   */
  start(ctx: ControllerContext): void | Promise<void>;
}
