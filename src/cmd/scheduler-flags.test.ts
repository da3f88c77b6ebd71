import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import type { SchedulerConfiguration } from '../scheduler/config/types.js';
import { addSchedulerFlags, applySchedulerFlags, DEFAULT_SCHEDULER_LEADER_ELECTION, fromCommandLine, type SchedulerFlags } from './scheduler-flags.js';

function parse(args: string[]): { flags: SchedulerFlags; command: Command } {
  const command = addSchedulerFlags(new Command('scheduler')).exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  command.parse(args, { from: 'user' });
  return { flags: command.opts<SchedulerFlags>(), command };
}

/** A configuration as a file could give it. */
const fileConfig = (leaderElection: Partial<SchedulerConfiguration['leaderElection']> = {}): SchedulerConfiguration => ({
  percentageOfNodesToScore: 0,
  podInitialBackoffSeconds: 1,
  podMaxBackoffSeconds: 10,
  profiles: [{ schedulerName: 'default-scheduler' }],
  leaderElection: { ...DEFAULT_SCHEDULER_LEADER_ELECTION, ...leaderElection },
});

const apply = (args: string[], config = fileConfig()): SchedulerConfiguration => {
  const { flags, command } = parse(args);
  return applySchedulerFlags(config, flags, fromCommandLine(command));
};

describe('scheduler flags', () => {
  it("default to upstream kube-scheduler's values", () => {
    const { flags } = parse([]);
    assert.equal(flags.securePort, 10259);
    assert.equal(flags.bindAddress, '127.0.0.1');
    assert.equal(flags.kubeApiQps, 50);
    assert.equal(flags.kubeApiBurst, 100);
    assert.equal(flags.kubeconfig, undefined);
    assert.equal(flags.config, undefined);
    assert.equal(flags.leaderElect, true);
    assert.equal(flags.leaderElectLeaseDuration, 15_000);
    assert.equal(flags.leaderElectRenewDeadline, 10_000);
    assert.equal(flags.leaderElectRetryPeriod, 2_000);
    assert.equal(flags.leaderElectResourceName, 'kube-scheduler');
    assert.equal(flags.leaderElectResourceNamespace, 'kube-system');
  });

  it('read every flag', () => {
    const { flags } = parse([
      '--kubeconfig=/k',
      '--config',
      '/c.yaml',
      '--secure-port=0',
      '--bind-address=127.0.0.2',
      '--kube-api-qps=5000',
      '--kube-api-burst=5000',
      '--leader-elect=false',
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=500ms',
      '--leader-elect-resource-name=sched',
      '--leader-elect-resource-namespace=ns',
    ]);
    assert.deepEqual(
      { ...flags },
      {
        kubeconfig: '/k',
        config: '/c.yaml',
        securePort: 0,
        bindAddress: '127.0.0.2',
        kubeApiQps: 5000,
        kubeApiBurst: 5000,
        leaderElect: false,
        leaderElectLeaseDuration: 4000,
        leaderElectRenewDeadline: 3000,
        leaderElectRetryPeriod: 500,
        leaderElectResourceName: 'sched',
        leaderElectResourceNamespace: 'ns',
      },
    );
    assert.equal(parse(['--leader-elect']).flags.leaderElect, true, 'a bare --leader-elect means true');
  });

  it('lay the leader election flags given on the command line over the file, and only those', () => {
    const file = fileConfig({ leaseDurationMs: 30_000, renewDeadlineMs: 20_000, resourceName: 'from-file' });
    assert.deepEqual(apply([], file), file, 'defaults never override the file');
    const merged = apply(['--leader-elect-lease-duration=40s', '--leader-elect-resource-namespace=other'], file);
    assert.deepEqual(merged.leaderElection, { ...file.leaderElection, leaseDurationMs: 40_000, resourceNamespace: 'other' });
    assert.deepEqual(merged.profiles, file.profiles, 'the rest of the file is kept');
    assert.equal(apply(['--leader-elect=false'], file).leaderElection.leaderElect, false);
  });

  it('refuse leader election timers upstream refuses, unless leader election is off', () => {
    assert.throws(() => apply(['--leader-elect-lease-duration=10s']), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => apply(['--leader-elect-renew-deadline=2s']), /renewDeadline must be greater than retryPeriod\*JitterFactor/);
    assert.throws(() => apply(['--leader-elect-resource-name=']), /needs a Lease name and namespace/);
    assert.doesNotThrow(() => apply(['--leader-elect=false', '--leader-elect-lease-duration=1s']));
  });

  it('refuse malformed values with a message that names them', () => {
    assert.throws(() => parse(['--leader-elect-lease-duration=15']), /invalid duration "15"/);
    assert.throws(() => parse(['--leader-elect=maybe']), /invalid boolean "maybe"/);
    assert.throws(() => parse(['--secure-port=70000']), /invalid port "70000"/);
    assert.throws(() => parse(['--kube-api-qps=-1']), /invalid value "-1": must be a non-negative number/);
    assert.throws(() => parse(['--kube-api-burst=1.5']), /invalid value "1.5": must be a non-negative integer/);
  });
});
