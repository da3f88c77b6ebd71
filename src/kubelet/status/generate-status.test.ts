import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerState } from '../runtime/interface.js';
import type { RuntimeContainer, RuntimePod } from '../pod-workers/runtime-pod.js';
import type { Pod } from '../types.js';
import { generatePodStatus, type GenerateStatusInput } from './generate-status.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const pod = (extra: Partial<NonNullable<Pod['spec']>> = {}, status: Pod['status'] = {}): Pod =>
  ({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [{ name: 'a', image: 'img' }], ...extra }, status }) as Pod;

let n = 1n;
const container = (name: string, state: ContainerState, exitCode = 0, restartCount = 0): RuntimeContainer => ({
  id: `id${n}`,
  name,
  metadata: { name, attempt: restartCount },
  state,
  createdAt: n++,
  startedAt: 1_780_000_000_000_000_000n,
  finishedAt: state === 'CONTAINER_EXITED' ? 1_780_000_001_000_000_000n : 0n,
  exitCode,
  image: 'img',
  imageRef: 'sha256:abc',
  reason: state === 'CONTAINER_EXITED' ? (exitCode === 0 ? 'Completed' : 'Error') : '',
  message: '',
  labels: {},
  annotations: {},
  mounts: [],
  logPath: '',
  restartCount,
  hash: '',
});

const runtimePod = (containers: RuntimeContainer[], ready = true): RuntimePod => ({
  uid: 'u',
  sandboxes: [{ id: 's', metadata: { name: 'p', uid: 'u', namespace: 'ns', attempt: 0 }, state: ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY', createdAt: 0n, network: { ip: '127.244.0.9', additionalIps: [] }, labels: {}, annotations: {} }],
  containers: [...containers].reverse(),
});

const input = (p: Pod, rp: RuntimePod, extra: Partial<GenerateStatusInput> = {}): GenerateStatusInput => ({
  pod: p,
  runtimePod: rp,
  oldStatus: p.status ?? {},
  podIsTerminal: false,
  runtimeName: 'containerd',
  nodeIPs: ['10.0.0.1'],
  failures: new Map(),
  isReady: () => true,
  isStarted: () => true,
  now: NOW,
  ...extra,
});

describe('generatePodStatus', () => {
  it('shows the newest container as the state and the one before as lastState, with containerd:// ids', () => {
    const p = pod();
    const s = generatePodStatus(input(p, runtimePod([container('a', 'CONTAINER_EXITED', 2, 0), container('a', 'CONTAINER_RUNNING', 0, 1)])));
    const cs = s.containerStatuses![0]!;
    assert.equal(cs.restartCount, 1);
    assert.ok(cs.state?.running);
    assert.equal(cs.lastState?.terminated?.exitCode, 2);
    assert.equal(cs.lastState?.terminated?.reason, 'Error');
    assert.match(cs.containerID ?? '', /^containerd:\/\/id/);
    assert.equal(cs.imageID, 'sha256:abc');
    assert.equal(s.phase, 'Running');
    assert.equal(s.podIP, '127.244.0.9');
    assert.equal(s.hostIP, '10.0.0.1');
    assert.equal(s.startTime, '2026-06-01T12:00:00Z');
  });

  it('shows the reason of a failed start as Waiting, keeping the last termination', () => {
    const p = pod();
    const failures = new Map([['a', { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=a pod=p_ns(u)' }]]);
    const s = generatePodStatus(input(p, runtimePod([container('a', 'CONTAINER_EXITED', 1)]), { failures }));
    const cs = s.containerStatuses![0]!;
    assert.deepEqual(cs.state, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=a pod=p_ns(u)' } });
    assert.equal(cs.lastState?.terminated?.exitCode, 1);
    assert.equal(s.phase, 'Running');
    assert.equal(s.conditions?.find((c) => c.type === 'Ready')?.message, 'containers with unready status: [a]');
  });

  it('says ContainerCreating (PodInitializing with init containers) before anything ran', () => {
    assert.equal(generatePodStatus(input(pod(), runtimePod([]))).containerStatuses![0]!.state?.waiting?.reason, 'ContainerCreating');
    const withInit = pod({ initContainers: [{ name: 'i', image: 'img' }] });
    const s = generatePodStatus(input(withInit, runtimePod([container('i', 'CONTAINER_RUNNING')])));
    assert.equal(s.containerStatuses![0]!.state?.waiting?.reason, 'PodInitializing');
    assert.equal(s.phase, 'Pending');
    assert.equal(s.conditions?.find((c) => c.type === 'Initialized')?.message, 'containers with incomplete status: [i]');
  });

  it('never leaves a terminal phase, and keeps transition times while a condition holds', () => {
    const p = pod({ restartPolicy: 'Always' }, { phase: 'Failed', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] });
    const s = generatePodStatus(input(p, runtimePod([container('a', 'CONTAINER_RUNNING')])));
    assert.equal(s.phase, 'Failed');
    const first = generatePodStatus(input(pod(), runtimePod([container('a', 'CONTAINER_RUNNING')])));
    const later = generatePodStatus(input(pod(), runtimePod([container('a', 'CONTAINER_RUNNING')]), { oldStatus: first, now: new Date('2026-06-01T13:00:00Z') }));
    assert.equal(later.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime, '2026-06-01T12:00:00Z');
    assert.equal(later.startTime, '2026-06-01T12:00:00Z');
  });

  it('reports a running container that vanished from the runtime as terminated with ContainerStatusUnknown', () => {
    const p = pod();
    const old = generatePodStatus(input(p, runtimePod([container('a', 'CONTAINER_RUNNING')])));
    const s = generatePodStatus(input(p, runtimePod([]), { oldStatus: old }));
    const cs = s.containerStatuses![0]!;
    assert.equal(cs.lastState?.terminated?.reason, 'ContainerStatusUnknown');
    assert.equal(cs.lastState?.terminated?.exitCode, 137);
    assert.equal(cs.restartCount, 1);
  });

  it('keeps the pod IP of a stopped sandbox and uses the node IP for host-network pods', () => {
    const p = pod({ restartPolicy: 'Never' });
    const done = generatePodStatus(input(p, runtimePod([container('a', 'CONTAINER_EXITED', 0)], false), { oldStatus: { podIP: '127.244.0.9', podIPs: [{ ip: '127.244.0.9' }] } }));
    assert.equal(done.podIP, '127.244.0.9');
    assert.equal(done.phase, 'Succeeded');
    assert.equal(done.conditions?.find((c) => c.type === 'PodReadyToStartContainers')?.status, 'False');
    const host = generatePodStatus(input(pod({ hostNetwork: true }), runtimePod([container('a', 'CONTAINER_RUNNING')])));
    assert.deepEqual(host.podIPs, [{ ip: '10.0.0.1' }]);
  });
});
