/**
 * The flags of `k8ts scheduler`, with upstream kube-scheduler's names and
 * defaults, and how they combine with the --config file. As upstream:
 * - the leader election flags override the file's leaderElection fields, but
 *   only the flags given on the command line (a default never overrides the
 *   file);
 * - the pod backoff (podInitialBackoffSeconds, podMaxBackoffSeconds) is set in
 *   the file only: upstream removed those deprecated flags;
 * - --kubeconfig, --kube-api-qps and --kube-api-burst always apply: k8ts's
 *   configuration subset has no clientConnection section.
 * /healthz and /metrics are plain HTTP on --bind-address (127.0.0.1 by
 * default), as the controller manager serves them, not upstream's HTTPS with
 * delegated authentication.
 */
import { Command, Option } from 'commander';
import { validateLeaderElectionTimers } from '../client/leader-election/leader-elector.js';
import type { LeaderElectionConfiguration, SchedulerConfiguration } from '../scheduler/config/types.js';
import { parseBoolFlag } from './controller-manager-flags.js';
import { durationFlag, formatDurationMs } from './go-duration.js';
import { parsePort } from './port-flag.js';

/** Upstream's kube-scheduler --secure-port. */
export const DEFAULT_SCHEDULER_PORT = 10259;

/** Upstream's leader election defaults for the scheduler (componentbaseconfig with kube-scheduler's lease). */
export const DEFAULT_SCHEDULER_LEADER_ELECTION: LeaderElectionConfiguration = {
  leaderElect: true,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  resourceNamespace: 'kube-system',
  resourceName: 'kube-scheduler',
};

/** Flags as commander gives them to the action. */
export interface SchedulerFlags {
  kubeconfig?: string;
  config?: string;
  securePort: number;
  bindAddress: string;
  kubeApiQps: number;
  kubeApiBurst: number;
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceName: string;
  leaderElectResourceNamespace: string;
}

function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`invalid value "${value}": must be a non-negative integer`);
  return Number(value);
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new Error(`invalid value "${value}": must be a non-negative number`);
  return n;
}

const durationOption = (flag: string, defaultMs: number, help: string): Option =>
  new Option(`--${flag} <duration>`, help).default(defaultMs, formatDurationMs(defaultMs)).argParser(durationFlag);

/** Add every scheduler flag to a command. */
export function addSchedulerFlags(command: Command): Command {
  const le = DEFAULT_SCHEDULER_LEADER_ELECTION;
  return command
    .addOption(new Option('--kubeconfig <path>', "kubeconfig with the API server and the scheduler's credentials"))
    .addOption(new Option('--config <path>', 'KubeSchedulerConfiguration file (YAML or JSON): profiles, plugins, percentageOfNodesToScore, pod backoff'))
    .addOption(new Option('--secure-port <port>', 'port of /healthz and /metrics, plain HTTP (0: pick a free one)').default(DEFAULT_SCHEDULER_PORT).argParser(parsePort))
    .addOption(new Option('--bind-address <ip>', 'address /healthz and /metrics listen on').default('127.0.0.1'))
    .addOption(new Option('--kube-api-qps <qps>', 'requests per second to the API server').default(50).argParser(nonNegativeNumber))
    .addOption(new Option('--kube-api-burst <n>', 'burst of requests to the API server').default(100).argParser(nonNegativeInt))
    .addOption(
      new Option('--leader-elect [bool]', 'run leader election, so that only one of several replicas schedules').default(le.leaderElect).argParser(parseBoolFlag).preset(true),
    )
    .addOption(durationOption('leader-elect-lease-duration', le.leaseDurationMs, 'how long a non-leader waits after a renewal it saw before taking the lease'))
    .addOption(durationOption('leader-elect-renew-deadline', le.renewDeadlineMs, 'how long the leader retries renewing before it stops leading'))
    .addOption(durationOption('leader-elect-retry-period', le.retryPeriodMs, 'how long candidates wait between tries to acquire or renew'))
    .addOption(new Option('--leader-elect-resource-name <name>', 'name of the Lease').default(le.resourceName))
    .addOption(new Option('--leader-elect-resource-namespace <namespace>', 'namespace of the Lease').default(le.resourceNamespace));
}

/** The leader election flags, each with the configuration field it overrides. */
const LEADER_ELECTION_FLAGS: ReadonlyArray<readonly [keyof SchedulerFlags, keyof LeaderElectionConfiguration]> = [
  ['leaderElect', 'leaderElect'],
  ['leaderElectLeaseDuration', 'leaseDurationMs'],
  ['leaderElectRenewDeadline', 'renewDeadlineMs'],
  ['leaderElectRetryPeriod', 'retryPeriodMs'],
  ['leaderElectResourceName', 'resourceName'],
  ['leaderElectResourceNamespace', 'resourceNamespace'],
];

/**
 * The configuration the scheduler runs with: the loaded file (or the
 * defaults) with the leader election flags given on the command line laid
 * over it. `givenOnCommandLine` tells which flags the user set (commander's
 * getOptionValueSource(...) === 'cli'). Throws for timers upstream refuses.
 */
export function applySchedulerFlags(
  config: SchedulerConfiguration,
  flags: SchedulerFlags,
  givenOnCommandLine: (attribute: keyof SchedulerFlags) => boolean,
): SchedulerConfiguration {
  const leaderElection: Record<string, unknown> = { ...config.leaderElection };
  for (const [flag, field] of LEADER_ELECTION_FLAGS) {
    if (givenOnCommandLine(flag)) leaderElection[field] = flags[flag];
  }
  const merged = leaderElection as unknown as LeaderElectionConfiguration;
  if (merged.leaderElect) {
    validateLeaderElectionTimers(merged.leaseDurationMs, merged.renewDeadlineMs, merged.retryPeriodMs);
    if (merged.resourceName === '' || merged.resourceNamespace === '') throw new Error('leader election needs a Lease name and namespace (--leader-elect-resource-name, --leader-elect-resource-namespace)');
  }
  return { ...config, leaderElection: merged };
}

/** Whether commander got a flag from the command line (not its default). */
export function fromCommandLine(command: Command): (attribute: keyof SchedulerFlags) => boolean {
  return (attribute) => command.getOptionValueSource(attribute) === 'cli';
}
