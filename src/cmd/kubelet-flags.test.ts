import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addKubeletFlags, kubeletFlagsError, parseNodeLabels, parseTaints, type KubeletFlags } from './kubelet-flags.js';

function parse(args: string[]): { flags?: KubeletFlags; error?: string } {
  const command = addKubeletFlags(new Command('kubelet')).exitOverride();
  let error = '';
  command.configureOutput({ writeErr: (s) => (error += s), writeOut: () => undefined });
  try {
    command.parse(args, { from: 'user' });
    return { flags: command.opts<KubeletFlags>() };
  } catch {
    return { error };
  }
}

describe('kubelet flags', () => {
  it("have upstream's defaults", () => {
    const { flags } = parse(['--kubeconfig', 'k']);
    assert.ok(flags);
    assert.equal(flags.nodeIp, '127.0.0.1');
    assert.equal(flags.rootDir, '.k8ts/kubelet');
    assert.equal(flags.port, 10250);
    assert.equal(flags.containerRuntime, 'process');
    assert.equal(flags.nodeStatusUpdateFrequency, 10_000);
    assert.equal(flags.nodeStatusReportFrequency, 300_000);
    assert.equal(flags.nodeLeaseDurationSeconds, 40);
    assert.equal(flags.syncFrequency, 60_000);
    assert.equal(flags.fileCheckFrequency, 20_000);
    assert.equal(flags.registerNode, true);
    assert.equal(flags.maxPods, 110);
    assert.deepEqual([flags.crashLoopBackoffInitial, flags.crashLoopBackoffMax, flags.crashLoopBackoffReset], [10_000, 300_000, 600_000]);
    assert.equal(kubeletFlagsError(flags), undefined);
  });

  it('take Go durations, labels, taints and booleans', () => {
    const { flags } = parse([
      '--kubeconfig=k',
      '--node-status-update-frequency=500ms',
      '--node-labels=a=1,example.com/b=',
      '--node-labels',
      'node.kubernetes.io/pool=x',
      '--register-with-taints=dedicated=infra:NoSchedule,gpu:NoExecute',
      '--register-node=false',
      '--port=0',
    ]);
    assert.ok(flags);
    assert.equal(flags.nodeStatusUpdateFrequency, 500);
    assert.deepEqual(flags.nodeLabels, { a: '1', 'example.com/b': '', 'node.kubernetes.io/pool': 'x' });
    assert.deepEqual(flags.registerWithTaints, [
      { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
      { key: 'gpu', effect: 'NoExecute' },
    ]);
    assert.equal(flags.registerNode, false);
    assert.equal(flags.port, 0);
  });

  it('refuse bad values, naming the flag and the value', () => {
    assert.match(parse(['--node-ip', 'nope']).error!, /--node-ip <ip>.*invalid IP address "nope"/s);
    assert.match(parse(['--port', '70000']).error!, /invalid port "70000"/);
    assert.match(parse(['--sync-frequency', '1 minute']).error!, /--sync-frequency.*invalid duration "1 minute"/s);
    assert.match(parse(['--file-check-frequency', '0s']).error!, /must be greater than zero/);
    assert.match(parse(['--container-runtime', 'docker']).error!, /Allowed choices are process, cri, sim/);
    assert.match(parse(['--max-pods', '-1']).error!, /must be a positive integer/);
    assert.match(parse(['--node-name', 'Not_Valid']).error!, /invalid node name "Not_Valid"/);
    assert.match(parse(['--register-node', 'maybe']).error!, /invalid boolean "maybe"/);
  });

  it("refuse --node-labels in kubernetes.io that a kubelet may not set, in upstream's words", () => {
    assert.throws(() => parseNodeLabels('node-role.kubernetes.io/control-plane='), /unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: \[node-role.kubernetes.io\/control-plane\]/);
    assert.throws(() => parseNodeLabels('novalue'), /invalid label "novalue": must be key=value/);
    assert.throws(() => parseNodeLabels('a=b c'), /invalid label value "b c" of "a"/);
    assert.deepEqual(parseNodeLabels('kubernetes.io/hostname=h'), { 'kubernetes.io/hostname': 'h' });
  });

  it('refuse bad taints', () => {
    assert.throws(() => parseTaints('key'), /invalid taint spec: key/);
    assert.throws(() => parseTaints('key=v:Sometimes'), /invalid taint effect: Sometimes/);
    assert.throws(() => parseTaints('bad key:NoSchedule'), /invalid taint key "bad key"/);
  });

  it('check flags that go together', () => {
    const base = parse(['--kubeconfig', 'k']).flags!;
    assert.match(kubeletFlagsError({ ...base, kubeconfig: '' })!, /--kubeconfig is required/);
    assert.match(kubeletFlagsError({ ...base, tlsCertFile: 'c' })!, /--tls-cert-file and --tls-private-key-file go together/);
    assert.match(kubeletFlagsError({ ...base, containerRuntime: 'cri' })!, /needs --container-runtime-endpoint/);
    assert.match(kubeletFlagsError({ ...base, containerRuntimeEndpoint: 'unix:///x' })!, /is for --container-runtime cri/);
    assert.match(kubeletFlagsError({ ...base, crashLoopBackoffMax: 1 })!, /--crash-loop-backoff-max must not be shorter/);
  });
});
