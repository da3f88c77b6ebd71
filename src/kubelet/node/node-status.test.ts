import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RuntimeStatus } from '../runtime/interface.js';
import type { MachineInfo } from './machine-info.js';
import { goArch, osImageOf } from './machine-info.js';
import { buildNodeStatus, KUBELET_VERSION, nodeConditions, notReadyReasons, withoutHeartbeats } from './node-status.js';

const ready: RuntimeStatus = {
  conditions: [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: true, reason: '', message: '' },
  ],
};
const noNetwork: RuntimeStatus = {
  conditions: [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: false, reason: 'NoPodCIDR', message: 'the node has no pod CIDR yet' },
  ],
};
const machine: MachineInfo = {
  cpus: 4,
  memoryBytes: 8 * 1024 ** 3,
  ephemeralStorageBytes: 100 * 1024 ** 3,
  kernelVersion: '6.1.0',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  operatingSystem: 'linux',
  architecture: 'amd64',
  machineID: 'm',
  bootID: 'b',
  systemUUID: '',
};

describe('node status', () => {
  it('is Ready with upstream reason and message when the runtime and its network are ready', () => {
    const conditions = nodeConditions(ready, 't1', []);
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
        ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
      ],
    );
  });

  it('is NotReady, saying why, when the network or the runtime is not ready or the runtime cannot be asked', () => {
    const ready = nodeConditions(noNetwork, 't1', []).find((c) => c.type === 'Ready')!;
    assert.equal(ready.status, 'False');
    assert.equal(ready.reason, 'KubeletNotReady');
    assert.equal(ready.message, 'container runtime network not ready: NetworkReady=false reason:NoPodCIDR message:the node has no pod CIDR yet');
    assert.deepEqual(notReadyReasons(new Error('connection refused')), ['container runtime is down']);
    assert.deepEqual(notReadyReasons({ conditions: [] }), ['container runtime not ready: <nil>', 'container runtime network not ready: <nil>']);
  });

  it('moves lastTransitionTime only when a condition changes status, and heartbeats every time', () => {
    const first = nodeConditions(noNetwork, 't1', []);
    const second = nodeConditions(noNetwork, 't2', first);
    const third = nodeConditions(ready, 't3', second);
    const readyOf = (cs: typeof first) => cs.find((c) => c.type === 'Ready')!;
    assert.equal(readyOf(second).lastTransitionTime, 't1');
    assert.equal(readyOf(second).lastHeartbeatTime, 't2');
    assert.equal(readyOf(third).lastTransitionTime, 't3');
    assert.equal(third.find((c) => c.type === 'MemoryPressure')!.lastTransitionTime, 't1');
  });

  it('reports addresses, capacity, allocatable less the hard eviction thresholds, nodeInfo and the kubelet endpoint', () => {
    const status = buildNodeStatus(
      {
        nodeIP: '127.0.0.2',
        hostname: 'node-b',
        machine,
        maxPods: 110,
        kubeletPort: 10250,
        runtimeVersion: { runtimeApiVersion: 'v1', runtimeName: 'k8ts-process', runtimeVersion: '0.1.0' },
        runtimeStatus: ready,
        images: [{ id: 'sha256:1', repoTags: ['docker.io/library/busybox:1.35'], repoDigests: [], size: 1000, pinned: false }],
      },
      't',
      [],
    );
    assert.deepEqual(status.addresses, [
      { type: 'InternalIP', address: '127.0.0.2' },
      { type: 'Hostname', address: 'node-b' },
    ]);
    assert.deepEqual(status.capacity, { cpu: '4', memory: '8388608Ki', pods: '110', 'ephemeral-storage': '104857600Ki' });
    assert.equal(status.allocatable?.['memory'], '8286208Ki');
    assert.equal(status.allocatable?.['ephemeral-storage'], String(Math.floor(100 * 1024 ** 3 * 0.9)));
    assert.equal(status.nodeInfo?.kubeletVersion, KUBELET_VERSION);
    assert.equal(status.nodeInfo?.containerRuntimeVersion, 'k8ts-process://0.1.0');
    assert.equal(status.nodeInfo?.architecture, 'amd64');
    assert.equal(status.daemonEndpoints?.kubeletEndpoint?.Port, 10250);
    assert.deepEqual(status.images, [{ names: ['docker.io/library/busybox:1.35'], sizeBytes: 1000 }]);
    assert.equal(withoutHeartbeats(status).conditions?.[0]?.lastHeartbeatTime, undefined);
  });

  it('names the machine as Go does', () => {
    assert.equal(goArch('x64'), 'amd64');
    assert.equal(goArch('arm64'), 'arm64');
    assert.equal(osImageOf('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'), 'Debian GNU/Linux 12 (bookworm)');
    assert.equal(osImageOf(''), 'Linux');
  });
});
