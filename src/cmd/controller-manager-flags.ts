/**
 * The flags of `k8ts controller-manager`, with upstream kube-controller-manager's
 * names and defaults, and their mapping onto ControllerManagerOptions and the
 * leader election settings. Durations are Go durations (40s, 5m, 1h30m).
 */
import { Command, Option } from 'commander';
import type { ControllerManagerOptions } from '../controllers/context.js';
import { defaultLeaderElectionSettings, type LeaderElectionSettings } from '../controllers/manager.js';
import { defaultControllerManagerOptions } from '../controllers/options.js';
import { parseControllersFlag } from '../controllers/controller-selection.js';
import { durationFlag, formatDurationMs } from './go-duration.js';
import { DEFAULT_CLUSTER_CIDR } from './network-defaults.js';
import { parsePort } from './port-flag.js';

/** Upstream's --concurrent-*-syncs flag of each controller that has one (the controller name → flag). */
export const CONCURRENT_SYNC_FLAGS: Readonly<Record<string, string>> = {
  deployment: 'concurrent-deployment-syncs',
  replicaset: 'concurrent-replicaset-syncs',
  'garbage-collector': 'concurrent-gc-syncs',
  namespace: 'concurrent-namespace-syncs',
  endpoints: 'concurrent-endpoint-syncs',
  endpointslice: 'concurrent-service-endpoint-syncs',
  daemonset: 'concurrent-daemonset-syncs',
  job: 'concurrent-job-syncs',
  cronjob: 'concurrent-cron-job-syncs',
  statefulset: 'concurrent-statefulset-syncs',
};

/** commander's camelCase attribute of a flag name. */
const attribute = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function parseBoolFlag(value: string): boolean {
  if (/^(true|1|t)$/i.test(value)) return true;
  if (/^(false|0|f)$/i.test(value)) return false;
  throw new Error(`invalid boolean "${value}": use true or false`);
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new Error(`invalid value "${value}": must be a positive integer`);
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value)) throw new Error(`invalid value "${value}": must be a non-negative integer`);
  return n;
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new Error(`invalid value "${value}": must be a non-negative number`);
  return n;
}

function fraction(value: string): number {
  const n = nonNegativeNumber(value);
  if (n > 1) throw new Error(`invalid value "${value}": must be between 0 and 1`);
  return n;
}

/** Flags as commander gives them to the action. */
export type ControllerManagerFlags = Record<string, unknown> & {
  kubeconfig?: string;
  securePort: number;
  bindAddress: string;
  controllers?: string[];
  leaderElect: boolean;
  kubeApiQps: number;
  kubeApiBurst: number;
};

const d = defaultControllerManagerOptions();
const le = defaultLeaderElectionSettings();

const durationOption = (flag: string, defaultMs: number, help: string): Option =>
  new Option(`--${flag} <duration>`, help).default(defaultMs, formatDurationMs(defaultMs)).argParser(durationFlag);

const boolOption = (flag: string, defaultValue: boolean, help: string): Option =>
  new Option(`--${flag} [bool]`, help).default(defaultValue).argParser(parseBoolFlag).preset(true);

/** Add every controller manager flag to a command. */
export function addControllerManagerFlags(command: Command): Command {
  command
    .addOption(new Option('--kubeconfig <path>', 'kubeconfig with the API server and the controller manager\'s credentials'))
    .addOption(new Option('--secure-port <port>', 'port of /healthz and /metrics (0: pick a free one)').default(10257).argParser(parsePort))
    .addOption(new Option('--bind-address <ip>', 'address /healthz and /metrics listen on').default('127.0.0.1'))
    .addOption(
      new Option('--controllers <list>', "controllers to run: '*' (all on by default), 'name' (on), '-name' (off)")
        // No commander default: repeated flags add up, and the default '*' applies when none is given.
        .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), ...parseControllersFlag(value)]),
    )
    .addOption(new Option('--kube-api-qps <qps>', 'requests per second to the API server').default(20).argParser(nonNegativeNumber))
    .addOption(new Option('--kube-api-burst <n>', 'burst of requests to the API server').default(30).argParser(nonNegativeInt))
    .addOption(boolOption('leader-elect', le.leaderElect, 'run leader election, so that only one of several replicas acts'))
    .addOption(durationOption('leader-elect-lease-duration', le.leaseDurationMs, 'how long a non-leader waits after a renewal it saw before taking the lease'))
    .addOption(durationOption('leader-elect-renew-deadline', le.renewDeadlineMs, 'how long the leader retries renewing before it stops leading'))
    .addOption(durationOption('leader-elect-retry-period', le.retryPeriodMs, 'how long candidates wait between tries to acquire or renew'))
    .addOption(new Option('--leader-elect-resource-name <name>', 'name of the Lease').default(le.resourceName))
    .addOption(new Option('--leader-elect-resource-namespace <namespace>', 'namespace of the Lease').default(le.resourceNamespace))
    .addOption(durationOption('node-monitor-grace-period', d.nodeMonitorGracePeriodMs, 'a node not heard from this long is Ready=Unknown'))
    .addOption(durationOption('node-monitor-period', d.nodeMonitorPeriodMs, 'how often node health is checked'))
    .addOption(durationOption('node-startup-grace-period', d.nodeStartupGracePeriodMs, 'how long a starting node may be unready'))
    .addOption(new Option('--node-eviction-rate <rate>', 'nodes per second whose pods are evicted in a healthy zone').default(d.nodeEvictionRate).argParser(nonNegativeNumber))
    .addOption(
      new Option('--secondary-node-eviction-rate <rate>', 'nodes per second whose pods are evicted in an unhealthy zone').default(d.secondaryNodeEvictionRate).argParser(nonNegativeNumber),
    )
    .addOption(new Option('--unhealthy-zone-threshold <fraction>', 'fraction of not-ready nodes that makes a zone unhealthy').default(d.unhealthyZoneThreshold).argParser(fraction))
    .addOption(new Option('--large-cluster-size-threshold <n>', 'nodes above which a cluster is large for eviction').default(d.largeClusterSizeThreshold).argParser(nonNegativeInt))
    .addOption(new Option('--cluster-cidr <cidr>', 'range of pod addresses; node IPAM gives each node a podCIDR from it').default(DEFAULT_CLUSTER_CIDR))
    .addOption(new Option('--node-cidr-mask-size <bits>', 'prefix length of each node\'s podCIDR').default(d.nodeCidrMaskSize).argParser(positiveInt))
    .addOption(boolOption('allocate-node-cidrs', d.allocateNodeCidrs, 'give each node a podCIDR from --cluster-cidr'))
    .addOption(durationOption('min-resync-period', d.minResyncPeriodMs, 'informers resync every [1, 2) times this'))
    .addOption(durationOption('namespace-sync-period', d.namespaceSyncPeriodMs, 'how often namespaces are resynced'))
    .addOption(durationOption('resource-quota-sync-period', d.resourceQuotaSyncPeriodMs, 'how often every quota\'s usage is recounted'))
    .addOption(new Option('--root-ca-file <path>', 'CA bundle published to every namespace as the ConfigMap kube-root-ca.crt (none: the root-ca-cert-publisher does not run)'))
    .addOption(new Option('--cluster-signing-cert-file <path>', 'PEM CA certificate csrsigning issues certificates from (none: no certificate is issued)'))
    .addOption(new Option('--cluster-signing-key-file <path>', 'PEM private key of the --cluster-signing-cert-file CA'))
    .addOption(durationOption('cluster-signing-duration', d.clusterSigningDurationMs, 'the longest lifetime of a certificate csrsigning issues'))
    .addOption(
      new Option('--terminated-pod-gc-threshold <n>', 'terminated pods kept before the pod GC deletes them (0: keep all)').default(d.terminatedPodGcThreshold).argParser(nonNegativeInt),
    );
  for (const [controller, flag] of Object.entries(CONCURRENT_SYNC_FLAGS)) {
    command.addOption(new Option(`--${flag} <n>`, `workers of the ${controller} controller`).default(d.concurrentSyncs(controller)).argParser(positiveInt));
  }
  return command;
}

/** The controllers' options from parsed flags. */
export function controllerManagerOptionsFromFlags(flags: Record<string, unknown>): ControllerManagerOptions {
  const num = (flag: string): number => flags[attribute(flag)] as number;
  const concurrent: Record<string, number> = {};
  for (const [controller, flag] of Object.entries(CONCURRENT_SYNC_FLAGS)) concurrent[controller] = num(flag);
  return defaultControllerManagerOptions({
    nodeMonitorGracePeriodMs: num('node-monitor-grace-period'),
    nodeMonitorPeriodMs: num('node-monitor-period'),
    nodeStartupGracePeriodMs: num('node-startup-grace-period'),
    nodeEvictionRate: num('node-eviction-rate'),
    secondaryNodeEvictionRate: num('secondary-node-eviction-rate'),
    unhealthyZoneThreshold: num('unhealthy-zone-threshold'),
    largeClusterSizeThreshold: num('large-cluster-size-threshold'),
    clusterCidr: flags.clusterCidr as string,
    nodeCidrMaskSize: num('node-cidr-mask-size'),
    allocateNodeCidrs: flags.allocateNodeCidrs as boolean,
    minResyncPeriodMs: num('min-resync-period'),
    namespaceSyncPeriodMs: num('namespace-sync-period'),
    resourceQuotaSyncPeriodMs: num('resource-quota-sync-period'),
    terminatedPodGcThreshold: num('terminated-pod-gc-threshold'),
    clusterSigningDurationMs: num('cluster-signing-duration'),
    concurrentSyncs: (name) => concurrent[name] ?? d.concurrentSyncs(name),
    ...(typeof flags.rootCaFile === 'string' ? { rootCaFile: flags.rootCaFile } : {}),
    ...(typeof flags.clusterSigningCertFile === 'string' ? { clusterSigningCertFile: flags.clusterSigningCertFile } : {}),
    ...(typeof flags.clusterSigningKeyFile === 'string' ? { clusterSigningKeyFile: flags.clusterSigningKeyFile } : {}),
  });
}

export function leaderElectionFromFlags(flags: Record<string, unknown>): LeaderElectionSettings {
  return defaultLeaderElectionSettings({
    leaderElect: flags.leaderElect as boolean,
    leaseDurationMs: flags.leaderElectLeaseDuration as number,
    renewDeadlineMs: flags.leaderElectRenewDeadline as number,
    retryPeriodMs: flags.leaderElectRetryPeriod as number,
    resourceName: flags.leaderElectResourceName as string,
    resourceNamespace: flags.leaderElectResourceNamespace as string,
  });
}
