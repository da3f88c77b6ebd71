import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerState, PodSandboxStatus } from '../runtime/interface.js';
import type { Pod } from '../types.js';
import { hashContainer } from './container-hash.js';
import { computePodActions, findNextInitContainerToRun, sandboxChanged, shouldContainerBeRestarted } from './pod-actions.js';
import type { RuntimeContainer, RuntimePod } from './runtime-pod.js';

const pod = (extra: Partial<NonNullable<Pod['spec']>> = {}, meta: Partial<Pod['metadata']> = {}): Pod =>
  ({
    metadata: { name: 'p', namespace: 'ns', uid: 'u', ...meta },
    spec: { containers: [{ name: 'a', image: 'img' }, { name: 'b', image: 'img' }], ...extra },
  }) as Pod;

let clock = 100n;
const sandbox = (state: PodSandboxStatus['state'] = 'SANDBOX_READY', attempt = 0, ip = '127.244.0.2'): PodSandboxStatus => ({
  id: `s${attempt}`,
  metadata: { name: 'p', uid: 'u', namespace: 'ns', attempt },
  state,
  createdAt: clock++,
  network: { ip, additionalIps: [] },
  labels: {},
  annotations: {},
});

const container = (p: Pod, name: string, state: ContainerState, exitCode = 0, restartCount = 0): RuntimeContainer => {
  const spec = [...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? []), ...((p.spec?.ephemeralContainers ?? []) as NonNullable<Pod["spec"]>["containers"])].find((c) => c.name === name)!;
  return {
    id: `${name}-${clock}`,
    name,
    metadata: { name, attempt: restartCount },
    state,
    createdAt: clock++,
    startedAt: 1n,
    finishedAt: state === 'CONTAINER_EXITED' ? 2n : 0n,
    exitCode,
    image: 'img',
    imageRef: '',
    reason: state === 'CONTAINER_EXITED' ? (exitCode === 0 ? 'Completed' : 'Error') : '',
    message: '',
    labels: {},
    annotations: {},
    mounts: [],
    logPath: '',
    restartCount,
    hash: hashContainer(spec),
  };
};

/** Containers listed newest first, as readRuntimePod gives them. */
const runtimePod = (sandboxes: PodSandboxStatus[], containers: RuntimeContainer[]): RuntimePod => ({
  uid: 'u',
  sandboxes: [...sandboxes].reverse(),
  containers: [...containers].reverse(),
});

describe('computePodActions', () => {
  it('starts an ephemeral container once, in a running sandbox, even before initialization ends; never again after it exits', () => {
    const debug = { name: 'dbg', image: 'busybox', targetContainerName: 'a' };
    const p = pod({ ephemeralContainers: [debug], initContainers: [{ name: 'init', image: 'img' }] });
    const fresh = computePodActions(p, runtimePod([], []));
    assert.ok(fresh.createSandbox);
    assert.deepEqual(fresh.ephemeralContainersToStart, [], 'not while the sandbox is being made');
    const initializing = computePodActions(p, runtimePod([sandbox()], [container(p, 'init', 'CONTAINER_RUNNING')]));
    assert.deepEqual(initializing.ephemeralContainersToStart.map((c) => c.name), ['dbg']);
    const exited = computePodActions(p, runtimePod([sandbox()], [container(p, 'init', 'CONTAINER_EXITED'), container(p, 'dbg', 'CONTAINER_EXITED', 1)]));
    assert.deepEqual(exited.ephemeralContainersToStart, []);
    assert.deepEqual(exited.containersToStart.map((c) => c.name), ['a', 'b'], 'the pod goes on as if it had none');
  });

  it('creates a sandbox and starts every container of a new pod', () => {
    const p = pod();
    const a = computePodActions(p, runtimePod([], []));
    assert.equal(a.createSandbox, true);
    assert.equal(a.attempt, 0);
    assert.deepEqual(a.containersToStart.map((c) => c.name), ['a', 'b']);
  });

  it('starts the first init container first, then the next one after it succeeds, then the app containers', () => {
    const p = pod({ initContainers: [{ name: 'i1', image: 'img' }, { name: 'i2', image: 'img' }] });
    assert.deepEqual(computePodActions(p, runtimePod([], [])).initContainersToStart.map((c) => c.name), ['i1']);
    const s = sandbox();
    assert.deepEqual(computePodActions(p, runtimePod([s], [container(p, 'i1', 'CONTAINER_RUNNING')])).initContainersToStart, []);
    assert.deepEqual(computePodActions(p, runtimePod([s], [container(p, 'i1', 'CONTAINER_EXITED')])).initContainersToStart.map((c) => c.name), ['i2']);
    const done = computePodActions(p, runtimePod([s], [container(p, 'i1', 'CONTAINER_EXITED'), container(p, 'i2', 'CONTAINER_EXITED')]));
    assert.deepEqual(done.containersToStart.map((c) => c.name), ['a', 'b']);
  });

  it('retries a failed init container unless restartPolicy is Never, which kills the pod', () => {
    const inits = { initContainers: [{ name: 'i1', image: 'img' }] };
    const s = sandbox();
    const always = pod(inits);
    assert.deepEqual(computePodActions(always, runtimePod([s], [container(always, 'i1', 'CONTAINER_EXITED', 1)])).initContainersToStart.map((c) => c.name), ['i1']);
    const never = pod({ ...inits, restartPolicy: 'Never' });
    const a = computePodActions(never, runtimePod([s], [container(never, 'i1', 'CONTAINER_EXITED', 1)]));
    assert.equal(a.killPod, true);
    assert.deepEqual(a.initContainersToStart, []);
  });

  it('restarts exited containers per restartPolicy and kills the pod when nothing is left to run', () => {
    const s = sandbox();
    const always = pod();
    const a = computePodActions(always, runtimePod([s], [container(always, 'a', 'CONTAINER_EXITED', 0), container(always, 'b', 'CONTAINER_RUNNING')]));
    assert.deepEqual(a.containersToStart.map((c) => c.name), ['a']);
    const onFailure = pod({ restartPolicy: 'OnFailure' });
    const b = computePodActions(onFailure, runtimePod([s], [container(onFailure, 'a', 'CONTAINER_EXITED', 0), container(onFailure, 'b', 'CONTAINER_EXITED', 1)]));
    assert.deepEqual(b.containersToStart.map((c) => c.name), ['b']);
    const never = pod({ restartPolicy: 'Never' });
    const c = computePodActions(never, runtimePod([s], [container(never, 'a', 'CONTAINER_EXITED', 0), container(never, 'b', 'CONTAINER_EXITED', 1)]));
    assert.equal(c.containersToStart.length, 0);
    assert.equal(c.killPod, true);
    assert.equal(c.createSandbox, false);
  });

  it('does not make a new sandbox for a finished pod that must not restart', () => {
    const never = pod({ restartPolicy: 'Never' });
    const a = computePodActions(never, runtimePod([sandbox('SANDBOX_NOTREADY')], [container(never, 'a', 'CONTAINER_EXITED'), container(never, 'b', 'CONTAINER_EXITED')]));
    assert.equal(a.createSandbox, false);
  });

  it('replaces a sandbox that is not ready (next attempt) and restarts a container whose spec changed', () => {
    const p = pod();
    const dead = computePodActions(p, runtimePod([sandbox('SANDBOX_NOTREADY', 0)], [container(p, 'a', 'CONTAINER_EXITED', 137)]));
    assert.equal(dead.createSandbox, true);
    assert.equal(dead.attempt, 1);
    assert.equal(dead.killPod, true);
    const running = container(p, 'a', 'CONTAINER_RUNNING');
    const changed = pod({ containers: [{ name: 'a', image: 'img:2' }, { name: 'b', image: 'img' }] });
    const a = computePodActions(changed, runtimePod([sandbox()], [running, container(p, 'b', 'CONTAINER_RUNNING')]));
    assert.deepEqual(a.containersToKill, [{ id: running.id, name: 'a', message: 'Container a definition changed, will be restarted' }]);
    assert.deepEqual(a.containersToStart.map((c) => c.name), ['a']);
  });

  it('keeps running containers (an adopted pod needs nothing)', () => {
    const p = pod();
    const a = computePodActions(p, runtimePod([sandbox()], [container(p, 'a', 'CONTAINER_RUNNING', 0, 4), container(p, 'b', 'CONTAINER_RUNNING')]));
    assert.deepEqual([a.killPod, a.createSandbox, a.containersToStart.length, a.containersToKill.length], [false, false, 0, 0]);
  });

  it('treats a sandbox without an address as changed, unless the pod uses the host network', () => {
    assert.equal(sandboxChanged(pod(), runtimePod([sandbox('SANDBOX_READY', 0, '')], [])).create, true);
    assert.equal(sandboxChanged(pod({ hostNetwork: true }), runtimePod([sandbox('SANDBOX_READY', 0, '')], [])).create, false);
    assert.equal(sandboxChanged(pod(), runtimePod([sandbox(), sandbox('SANDBOX_READY', 1)], [])).create, true);
  });

  it('never restarts the containers of a pod being deleted', () => {
    const p = pod({}, { deletionTimestamp: '2026-01-01T00:00:00Z' });
    assert.equal(shouldContainerBeRestarted(p.spec!.containers[0]!, p, runtimePod([sandbox()], [container(p, 'a', 'CONTAINER_EXITED', 1)])), false);
  });

  it('finds no init container to run once an app container runs', () => {
    const p = pod({ initContainers: [{ name: 'i1', image: 'img' }] });
    assert.equal(findNextInitContainerToRun(p, runtimePod([sandbox()], [container(p, 'a', 'CONTAINER_RUNNING')])).done, true);
  });
});

describe('computePodActions with sidecars (init containers with restartPolicy Always)', () => {
  const withSidecar = (restartPolicy = 'Never'): Pod =>
    pod({ restartPolicy, initContainers: [{ name: 'side', image: 'img', restartPolicy: 'Always' }, { name: 'i2', image: 'img' }] });

  it('starts the sidecar, waits for it to have started, runs the next init container, then the app containers', () => {
    const p = withSidecar();
    const s = sandbox();
    assert.deepEqual(computePodActions(p, runtimePod([], [])).initContainersToStart.map((c) => c.name), ['side']);
    const side = container(p, 'side', 'CONTAINER_RUNNING');
    assert.deepEqual(computePodActions(p, runtimePod([s], [side]), () => false).initContainersToStart, []);
    assert.deepEqual(computePodActions(p, runtimePod([s], [side])).initContainersToStart.map((c) => c.name), ['i2']);
    const done = computePodActions(p, runtimePod([s], [side, container(p, 'i2', 'CONTAINER_EXITED')]));
    assert.deepEqual(done.containersToStart.map((c) => c.name), ['a', 'b']);
  });

  it('restarts a sidecar that stopped, whatever the pod restartPolicy, and kills the pod once the app containers are done', () => {
    const p = withSidecar('Never');
    const s = sandbox();
    const running = computePodActions(p, runtimePod([s], [container(p, 'side', 'CONTAINER_EXITED', 1), container(p, 'i2', 'CONTAINER_EXITED'), container(p, 'a', 'CONTAINER_RUNNING'), container(p, 'b', 'CONTAINER_RUNNING')]));
    assert.deepEqual(running.initContainersToStart.map((c) => c.name), ['side']);
    assert.equal(running.killPod, false);
    const finished = computePodActions(p, runtimePod([s], [container(p, 'side', 'CONTAINER_RUNNING'), container(p, 'i2', 'CONTAINER_EXITED'), container(p, 'a', 'CONTAINER_EXITED'), container(p, 'b', 'CONTAINER_EXITED')]));
    assert.equal(finished.killPod, true);
  });

  it('kills a Never pod whose regular init container failed', () => {
    const p = withSidecar('Never');
    const a = computePodActions(p, runtimePod([sandbox()], [container(p, 'side', 'CONTAINER_RUNNING'), container(p, 'i2', 'CONTAINER_EXITED', 1)]));
    assert.equal(a.killPod, true);
  });
});
