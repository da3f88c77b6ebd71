import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addControllerManagerFlags, controllerManagerOptionsFromFlags, leaderElectionFromFlags, parseBoolFlag, type ControllerManagerFlags } from './controller-manager-flags.js';

function parse(args: string[]): ControllerManagerFlags {
  const command = addControllerManagerFlags(new Command('controller-manager')).exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  command.parse(args, { from: 'user' });
  return command.opts<ControllerManagerFlags>();
}

describe('controller manager flags', () => {
  it("default to upstream's values", () => {
    const flags = parse([]);
    const o = controllerManagerOptionsFromFlags(flags);
    assert.equal(o.nodeMonitorGracePeriodMs, 40_000);
    assert.equal(o.nodeMonitorPeriodMs, 5_000);
    assert.equal(o.minResyncPeriodMs, 12 * 3_600_000);
    assert.equal(o.clusterCidr, '127.244.0.0/16');
    assert.equal(o.allocateNodeCidrs, true);
    assert.equal(o.concurrentSyncs('garbage-collector'), 20);
    assert.equal(o.concurrentSyncs('disruption'), 1);
    assert.deepEqual(leaderElectionFromFlags(flags), {
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceName: 'kube-controller-manager',
      resourceNamespace: 'kube-system',
    });
    assert.equal(flags.securePort, 10257);
    assert.equal(flags.bindAddress, '127.0.0.1');
    assert.equal(flags.controllers, undefined, "'*' applies when none is given");
    assert.equal(o.rootCaFile, undefined, 'no --root-ca-file: the root-ca-cert-publisher does not start');
  });

  it('map every flag onto the options', () => {
    const flags = parse([
      '--node-monitor-grace-period=4s',
      '--node-monitor-period',
      '500ms',
      '--node-startup-grace-period=1m',
      '--node-eviction-rate=2',
      '--secondary-node-eviction-rate=0.5',
      '--unhealthy-zone-threshold=0.3',
      '--large-cluster-size-threshold=3',
      '--cluster-cidr=10.244.0.0/16',
      '--node-cidr-mask-size=26',
      '--allocate-node-cidrs=false',
      '--min-resync-period=1h30m',
      '--namespace-sync-period=10s',
      '--terminated-pod-gc-threshold=0',
      '--concurrent-gc-syncs=3',
      '--concurrent-service-endpoint-syncs=7',
      '--concurrent-cron-job-syncs=2',
      '--leader-elect=false',
      '--leader-elect-lease-duration=3s',
      '--leader-elect-renew-deadline=2s',
      '--leader-elect-retry-period=500ms',
      '--leader-elect-resource-name=kcm',
      '--leader-elect-resource-namespace=ns',
      '--controllers=*,-deployment',
      '--controllers',
      'job',
      '--secure-port=0',
      '--root-ca-file=/pki/ca.crt',
    ]);
    const o = controllerManagerOptionsFromFlags(flags);
    assert.equal(o.nodeMonitorGracePeriodMs, 4000);
    assert.equal(o.nodeMonitorPeriodMs, 500);
    assert.equal(o.nodeStartupGracePeriodMs, 60_000);
    assert.equal(o.nodeEvictionRate, 2);
    assert.equal(o.secondaryNodeEvictionRate, 0.5);
    assert.equal(o.unhealthyZoneThreshold, 0.3);
    assert.equal(o.largeClusterSizeThreshold, 3);
    assert.equal(o.clusterCidr, '10.244.0.0/16');
    assert.equal(o.nodeCidrMaskSize, 26);
    assert.equal(o.allocateNodeCidrs, false);
    assert.equal(o.minResyncPeriodMs, 5_400_000);
    assert.equal(o.namespaceSyncPeriodMs, 10_000);
    assert.equal(o.terminatedPodGcThreshold, 0);
    assert.equal(o.concurrentSyncs('garbage-collector'), 3);
    assert.equal(o.concurrentSyncs('endpointslice'), 7);
    assert.equal(o.concurrentSyncs('cronjob'), 2);
    assert.equal(o.concurrentSyncs('replicaset'), 5);
    assert.equal(o.rootCaFile, '/pki/ca.crt');
    const le = leaderElectionFromFlags(flags);
    assert.deepEqual(le, { leaderElect: false, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500, resourceName: 'kcm', resourceNamespace: 'ns' });
    assert.deepEqual(flags.controllers, ['*', '-deployment', 'job']);
    assert.equal(flags.securePort, 0);
    assert.equal(parse(['--leader-elect']).leaderElect, true);
  });

  it('refuse bad values with a message naming them', () => {
    assert.throws(() => parse(['--node-monitor-grace-period=40']), /invalid duration "40"/);
    assert.throws(() => parse(['--leader-elect=maybe']), /invalid boolean "maybe"/);
    assert.throws(() => parse(['--concurrent-gc-syncs=0']), /invalid value "0": must be a positive integer/);
    assert.throws(() => parse(['--unhealthy-zone-threshold=2']), /must be between 0 and 1/);
    assert.throws(() => parse(['--node-eviction-rate=-1']), /must be a non-negative number/);
    assert.throws(() => parse(['--secure-port=70000']), /invalid port/);
    assert.equal(parseBoolFlag('T'), true);
  });

  it('map the CSR signing flags (upstream names; default duration 8760h0m0s; no files: csrsigning idle)', () => {
    const none = controllerManagerOptionsFromFlags(parse([]));
    assert.equal(none.clusterSigningDurationMs, 8760 * 3_600_000);
    assert.equal(none.clusterSigningCertFile, undefined);
    assert.equal(none.clusterSigningKeyFile, undefined);
    const help = addControllerManagerFlags(new Command('controller-manager')).helpInformation();
    assert.match(help, /--cluster-signing-duration <duration>.*\(default: 8760h0m0s\)/s);
    const o = controllerManagerOptionsFromFlags(
      parse(['--cluster-signing-cert-file=/pki/ca.crt', '--cluster-signing-key-file', '/pki/ca.key', '--cluster-signing-duration=1h30m']),
    );
    assert.equal(o.clusterSigningCertFile, '/pki/ca.crt');
    assert.equal(o.clusterSigningKeyFile, '/pki/ca.key');
    assert.equal(o.clusterSigningDurationMs, 90 * 60_000);
    assert.throws(() => parse(['--cluster-signing-duration=soon']), /soon/);
  });
});
