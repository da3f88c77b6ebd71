import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import { waitFor } from '../../client/testing/wait-for.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../runtime/labels.js';
import { newProcessRuntime } from '../runtime/process/process-runtime.js';
import { containersDir, readJsonIfExists, shimStateFile, type ShimState } from '../runtime/process/state-files.js';
import type { Pod } from '../types.js';
import { VolumeError } from '../volumes/interface.js';
import { serviceUnavailable } from '../../machinery/status.js';
import { newHarness, NODE_IP, shellPod, type Harness } from './testing/harness.js';

const WAIT = { timeoutMs: 20_000, intervalMs: 10 };

const statusOf = (pod: Pod | undefined, name = 'main'): ContainerStatus | undefined => pod?.status?.containerStatuses?.find((s) => s.name === name);
const condition = (pod: Pod | undefined, type: string): string | undefined => pod?.status?.conditions?.find((c) => c.type === type)?.status;

describe('pod workers on the process runtime', () => {
  const harnesses: Harness[] = [];
  const harness = (...args: Parameters<typeof newHarness>): Harness => {
    const h = newHarness(...args);
    harnesses.push(h);
    return h;
  };
  after(async () => {
    for (const h of harnesses) await h.dispose();
  });

  it('runs a pod: Running and Ready, with its log in CRI format and its status patched with the uid', async () => {
    const h = harness();
    const created = await h.createPod({
      ...shellPod('web', 'echo hello from $GREETING; exec sleep 1000'),
      status: { conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    } as Pod);
    const podSpec = created.spec!;
    podSpec.containers[0]!.env = [{ name: 'GREETING', value: 'k8ts' }];
    await waitFor(async () => {
      const pod = await h.getPod('web');
      return pod?.status?.phase === 'Running' && condition(pod, 'Ready') === 'True';
    }, WAIT);
    const pod = (await h.getPod('web'))!;
    const status = statusOf(pod)!;
    assert.ok(status.state?.running?.startedAt);
    assert.match(status.containerID ?? '', /^k8ts-process:\/\/[0-9a-f]{64}$/);
    assert.equal(status.restartCount, 0);
    assert.equal(status.ready, true);
    assert.equal(status.started, true);
    assert.match(pod.status?.podIP ?? '', /^127\.244\./);
    assert.deepEqual(pod.status?.hostIPs, [{ ip: NODE_IP }]);
    assert.equal(pod.status?.qosClass, 'BestEffort');
    assert.ok(pod.status?.startTime);
    const types = (pod.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
    assert.deepEqual(types, ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime, '2026-01-01T00:00:00Z');

    const log = join(h.logsDir, `default_web_${pod.metadata.uid}`, 'main', '0.log');
    await waitFor(() => {
      try {
        return /^\S+ stdout F hello from\b/m.test(readFileSync(log, 'utf8'));
      } catch {
        return false;
      }
    }, WAIT);

    const patches = h.client.actionsOf('patch', 'pods/status');
    assert.ok(patches.length >= 1);
    for (const p of patches) {
      assert.equal(p.patchType, 'strategic');
      assert.deepEqual((p.body as { metadata: unknown }).metadata, { uid: pod.metadata.uid });
    }
    assert.equal(h.client.actionsOf('update', 'pods/status').length, 0);
    const reasons = h.events.filter((e) => e.pod === 'web').map((e) => e.reason);
    assert.ok(reasons.includes('Created') && reasons.includes('Started'), reasons.join(','));
    // As upstream's kubelet: the container Events name the container (kubectl get events -o wide: SUBOBJECT).
    for (const e of h.events.filter((e) => e.pod === 'web' && (e.reason === 'Created' || e.reason === 'Started'))) assert.equal(e.fieldPath, 'spec.containers{main}');
    assert.ok(h.probes.started.some((s) => s.name === 'main' && s.podIP === pod.status?.podIP));
    // The pod's probe clock started when its sync began (upstream's AddPod), before its container ran.
    assert.equal(h.probes.added[0], pod.metadata.uid);

    // A status that does not change is not written again.
    const count = h.client.actionsOf('patch', 'pods/status').length;
    h.workers.requestSync(pod.metadata.uid!);
    h.workers.requestSync(pod.metadata.uid!);
    await waitFor(() => h.probes.started.length > 0, WAIT);
    const again = h.client.actionsOf('patch', 'pods/status').length;
    assert.ok(again <= count + 1, `${again} patches after ${count}`);
  });

  it('reads the runtime once in a sync with nothing to do, and again after starting a container (a restart shows in the status)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-sync-reads-'));
    const runtimeOptions = { stateDir: join(dir, 'state'), imagesDir: join(dir, 'images'), podCIDR: '127.244.251.0/24', pollIntervalMs: 5 };
    const log: string[] = [];
    const counted = newProcessRuntime(runtimeOptions);
    const listContainers = counted.runtime.listContainers.bind(counted.runtime);
    counted.runtime.listContainers = (filter) => {
      if (filter?.labelSelector?.[POD_UID_LABEL] !== undefined) log.push('read');
      return listContainers(filter);
    };
    const h = harness({ runtime: runtimeOptions, workers: { runtime: counted } });
    const setUpPod = h.volumes.setUpPod.bind(h.volumes);
    h.volumes.setUpPod = async () => {
      log.push('sync');
      return setUpPod();
    };
    const created = await h.createPod(shellPod('reads', 'exec sleep 1000'));
    const uid = created.metadata.uid!;
    await waitFor(async () => (await h.getPod('reads'))?.status?.phase === 'Running', WAIT);
    const readsOfSyncs = async (): Promise<number[]> => {
      // Two syncs one after the other (a pod's syncs never overlap): the reads of the first lie between the two markers.
      log.length = 0;
      h.workers.requestSync(uid);
      await waitFor(() => log.includes('read'), WAIT);
      h.workers.requestSync(uid);
      await waitFor(() => log.filter((e) => e === 'sync').length >= 2 && log.lastIndexOf('read') > log.lastIndexOf('sync'), WAIT);
      const first = log.indexOf('sync');
      const second = log.indexOf('sync', first + 1);
      return [log.slice(first, second).filter((e) => e === 'read').length];
    };
    assert.deepEqual(await readsOfSyncs(), [1], 'nothing to do: one read');

    const id = statusOf(await h.getPod('reads'))!.containerID!.replace(/^k8ts-process:\/\//, '');
    const state = readJsonIfExists<ShimState>(shimStateFile(join(containersDir(runtimeOptions.stateDir), id)));
    process.kill(-state!.pid, 'SIGKILL');
    await waitFor(async () => (await counted.runtime.containerStatus(id)).state === 'CONTAINER_EXITED', WAIT);
    await waitFor(async () => {
      const s = statusOf(await h.getPod('reads'));
      return s?.restartCount === 1 && s.state?.running !== undefined && s.lastState?.terminated?.exitCode === 137;
    }, WAIT);
  });

  it('reports what a sync started only from the next sync, as upstream (status from the runtime as the sync found it)', async () => {
    // A long relist: nothing wakes the pod again by itself.
    const h = harness({ workers: { relistIntervalMs: 60_000, recheckAfterActMs: 60_000 } });
    const created = await h.createPod(shellPod('found', 'exec sleep 1000'));
    await waitFor(() => h.client.actionsOf('patch', 'pods/status').length > 0, WAIT);
    // The sync that made the sandbox and started the container reports the pod as it found it:
    // Pending, its container ContainerCreating, no IP. Reporting the just-started container as
    // running would make a container that exits at once look running and ready.
    const first = JSON.stringify(h.client.actionsOf('patch', 'pods/status')[0]!.body);
    assert.match(first, /"phase":"Pending"/);
    assert.match(first, /"reason":"ContainerCreating"/);
    assert.doesNotMatch(first, /"running"|"podIP"/);
    // The next sync (here asked for, as the relist would on seeing the new container) finds it running.
    h.workers.requestSync(created.metadata.uid!);
    await waitFor(async () => (await h.getPod('found'))?.status?.phase === 'Running' && statusOf(await h.getPod('found'))?.state?.running !== undefined, WAIT);
  });

  it('syncs a pod again soon after a sync started its containers, without waiting for a relist', async () => {
    const h = harness({ workers: { relistIntervalMs: 60_000, recheckAfterActMs: 50 } });
    await h.createPod(shellPod('rechecked', 'exec sleep 1000'));
    await waitFor(async () => (await h.getPod('rechecked'))?.status?.phase === 'Running' && statusOf(await h.getPod('rechecked'))?.state?.running !== undefined, WAIT);
  });

  it("writes a readiness change at once, while the pod's sync is still busy", async () => {
    const h = harness();
    await h.createPod(shellPod('ready', 'exec sleep 1000'));
    await waitFor(async () => condition(await h.getPod('ready'), 'Ready') === 'True', WAIT);
    const uid = (await h.getPod('ready'))!.metadata.uid!;

    let release = (): void => undefined;
    h.volumes.hold = new Promise<void>((resolve) => (release = resolve));
    h.probes.unready.add('main');
    h.workers.requestSync(uid);
    try {
      await waitFor(async () => condition(await h.getPod('ready'), 'Ready') === 'False', WAIT);
      assert.equal(h.volumes.held, 1, 'the sync is still waiting for its volumes');
      const pod = await h.getPod('ready');
      assert.equal(statusOf(pod)?.ready, false);
      assert.equal(statusOf(pod)?.started, true);
      const ready = pod?.status?.conditions?.find((c) => c.type === 'Ready');
      assert.equal(ready?.reason, 'ContainersNotReady');
      assert.equal(ready?.message, 'containers with unready status: [main]');
      assert.equal(condition(pod, 'ContainersReady'), 'False');
    } finally {
      release();
      h.volumes.hold = undefined;
    }
    h.probes.unready.delete('main');
    h.workers.requestSync(uid);
    await waitFor(async () => condition(await h.getPod('ready'), 'Ready') === 'True', WAIT);
  });

  it('runs init containers one at a time, in order, before the app container', async () => {
    const h = harness();
    const file = join(h.root, 'order');
    await h.createPod({
      ...shellPod('init', `cat ${file}; exec sleep 1000`),
      spec: {
        initContainers: [
          { name: 'first', image: 'busybox:1.35', command: ['sh', '-c', `sleep 0.2; echo first >> ${file}`] },
          { name: 'second', image: 'busybox:1.35', command: ['sh', '-c', `echo second >> ${file}`] },
        ],
        containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', `cat ${file}; exec sleep 1000`] }],
        terminationGracePeriodSeconds: 5,
      },
    } as Pod);
    let sawPending = false;
    await waitFor(async () => {
      const pod = await h.getPod('init');
      if (pod?.status?.phase === 'Pending' && condition(pod, 'Initialized') === 'False') sawPending = true;
      return pod?.status?.phase === 'Running';
    }, WAIT);
    assert.ok(sawPending, 'the pod was Pending while initialising');
    assert.equal(readFileSync(file, 'utf8'), 'first\nsecond\n');
    const pod = (await h.getPod('init'))!;
    const inits = pod.status?.initContainerStatuses ?? [];
    assert.deepEqual(inits.map((s) => [s.name, s.state?.terminated?.reason, s.state?.terminated?.exitCode, s.ready]), [
      ['first', 'Completed', 0, true],
      ['second', 'Completed', 0, true],
    ]);
    assert.equal(condition(pod, 'Initialized'), 'True');
  });

  it('backs off a crashing container (CrashLoopBackOff) while its restartCount grows, keeping only the newest exited container', async () => {
    const h = harness();
    await h.createPod(shellPod('crash', 'echo crashing; exit 3'));
    let sawBackOff = false;
    await waitFor(async () => {
      const s = statusOf(await h.getPod('crash'));
      if (s?.state?.waiting?.reason === 'CrashLoopBackOff') {
        sawBackOff = true;
        assert.match(s.state.waiting.message ?? '', /^back-off \d+ms restarting failed container=main pod=crash_default\(/);
        assert.equal(s.lastState?.terminated?.exitCode, 3);
        assert.equal(s.lastState?.terminated?.reason, 'Error');
      }
      return (s?.restartCount ?? 0) >= 3 && sawBackOff;
    }, WAIT);
    const pod = (await h.getPod('crash'))!;
    assert.equal(pod.status?.phase, 'Running');
    assert.ok(h.events.some((e) => e.reason === 'BackOff' && e.message === `Back-off restarting failed container main in pod crash_default(${pod.metadata.uid})`));
    await waitFor(async () => {
      const exited = (await h.runtime.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: pod.metadata.uid! }, state: 'CONTAINER_EXITED' })).length;
      return exited === 1;
    }, WAIT);
  });

  it('gives restartPolicy Never and OnFailure pods the phase of their exit codes', async () => {
    const h = harness();
    const marker = join(h.root, 'marker');
    await h.createPod(shellPod('never-ok', 'exit 0', { restartPolicy: 'Never' }));
    await h.createPod(shellPod('never-fail', 'exit 1', { restartPolicy: 'Never' }));
    await h.createPod(shellPod('onfailure', `test -f ${marker} && exit 0; touch ${marker}; exit 2`, { restartPolicy: 'OnFailure' }));
    await waitFor(async () => (await h.getPod('never-ok'))?.status?.phase === 'Succeeded', WAIT);
    await waitFor(async () => (await h.getPod('never-fail'))?.status?.phase === 'Failed', WAIT);
    await waitFor(async () => (await h.getPod('onfailure'))?.status?.phase === 'Succeeded', WAIT);
    const failed = (await h.getPod('never-fail'))!;
    assert.equal(statusOf(failed)?.state?.terminated?.exitCode, 1);
    assert.equal(condition(failed, 'Ready'), 'False');
    assert.equal(failed.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodFailed');
    assert.equal(statusOf(await h.getPod('onfailure'))?.restartCount, 1);
    const ok = (await h.getPod('never-ok'))!;
    assert.equal(ok.status?.conditions?.find((c) => c.type === 'ContainersReady')?.reason, 'PodCompleted');
    // Finished pods stay in the API; their sandbox is stopped.
    await waitFor(async () => {
      const sandboxes = await h.runtime.runtime.listPodSandbox({ labelSelector: { [POD_UID_LABEL]: ok.metadata.uid! } });
      return sandboxes.length === 1 && sandboxes[0]!.state === 'SANDBOX_NOTREADY';
    }, WAIT);
    assert.match(ok.status?.podIP ?? '', /^127\.244\./);
  });

  it('terminates gracefully: SIGTERM, the wait, the final status, then the delete with the uid precondition', async () => {
    const h = harness();
    const created = await h.createPod(shellPod('graceful', `trap 'echo got TERM; sleep 0.3; exit 0' TERM; echo ready; while true; do sleep 0.05; done`));
    await waitFor(async () => condition(await h.getPod('graceful'), 'Ready') === 'True', WAIT);
    const uid = created.metadata.uid!;
    await h.client.resource<Pod>({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }).delete('graceful', { namespace: 'default' });
    // The trap's line, read while the container sleeps its 0.3 s: once the pod is gone the kubelet removes its logs.
    const logPath = join(h.logsDir, `default_graceful_${uid}`, 'main', '0.log');
    await waitFor(() => existsSync(logPath) && /stdout F got TERM/.test(readFileSync(logPath, 'utf8')), WAIT);
    await waitFor(async () => (await h.getPod('graceful')) === undefined, WAIT);
    const deletes = h.client.actionsOf('delete', 'pods').filter((a) => a.name === 'graceful');
    const final = deletes[deletes.length - 1]!;
    assert.deepEqual(final.body, { namespace: 'default', gracePeriodSeconds: 0, preconditions: { uid } });
    // The final status was written before the delete: the container terminated with exit 0.
    const statusPatches = h.client.actionsOf('patch', 'pods/status').filter((a) => a.name === 'graceful');
    const last = statusPatches[statusPatches.length - 1]!.body as { status: { containerStatuses?: ContainerStatus[]; phase?: string } };
    assert.equal(last.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
    assert.ok(h.events.some((e) => e.pod === 'graceful' && e.reason === 'Killing' && e.message === 'Stopping container main' && e.fieldPath === 'spec.containers{main}'));
    // Then the pod is gone from the desired set: its sandbox is removed.
    await waitFor(async () => (await h.runtime.runtime.listPodSandbox({ labelSelector: { [POD_UID_LABEL]: uid } })).length === 0, WAIT);
  });

  it('adopts running containers after a restart: same ids, no restart counted', async () => {
    const h = harness();
    await h.createPod(shellPod('adopt', 'exec sleep 1000'));
    await waitFor(async () => condition(await h.getPod('adopt'), 'Ready') === 'True', WAIT);
    const before = statusOf(await h.getPod('adopt'))!;
    await h.restart();
    const startedBefore = h.probes.started.length;
    await waitFor(() => h.probes.started.length > startedBefore, WAIT);
    const uid = (await h.getPod('adopt'))!.metadata.uid!;
    const containers = await h.runtime.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: uid } });
    assert.equal(containers.length, 1);
    assert.equal(`k8ts-process://${containers[0]!.id}`, before.containerID);
    assert.equal(containers[0]!.state, 'CONTAINER_RUNNING');
    const after = statusOf(await h.getPod('adopt'))!;
    assert.equal(after.containerID, before.containerID);
    assert.equal(after.restartCount, 0);
  });

  it('leaves a container with an absent image waiting with ErrImageNeverPull and says how to import it', async () => {
    const h = harness({ runtime: { missingImages: 'reject' } });
    await h.createPod(shellPod('noimage', 'exit 0'));
    await waitFor(async () => statusOf(await h.getPod('noimage'))?.state?.waiting?.reason === 'ErrImageNeverPull', WAIT);
    const s = statusOf(await h.getPod('noimage'))!;
    assert.match(s.state?.waiting?.message ?? '', /k8ts image build/);
    assert.ok(h.events.some((e) => e.type === 'Warning' && e.reason === 'ErrImageNeverPull' && /k8ts image build/.test(e.message)));
    assert.equal((await h.getPod('noimage'))?.status?.phase, 'Pending');
  });

  it('leaves a container of an absent image that names no command waiting with ErrImageNeverPull, saying how to build it', async () => {
    const h = harness();
    await h.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unbuilt', namespace: 'default' },
      spec: { containers: [{ name: 'web', image: 'localhost/not-built:1.0' }], terminationGracePeriodSeconds: 5 },
    } as Pod);
    await waitFor(async () => statusOf(await h.getPod('unbuilt'), 'web')?.state?.waiting?.reason === 'ErrImageNeverPull', WAIT);
    const message = statusOf(await h.getPod('unbuilt'), 'web')!.state?.waiting?.message ?? '';
    assert.match(message, /^Container image "localhost\/not-built:1\.0" is not present on this node, and container web names no command/);
    assert.match(message, /k8ts image build hello/);
    assert.ok(h.events.some((e) => e.type === 'Warning' && e.reason === 'ErrImageNeverPull' && e.message === message));
    assert.ok(!h.events.some((e) => e.reason === 'Failed'), 'not a CreateContainerError');
  });

  it('runs an absent image with the host executables on the process runtime, with a Warning', async () => {
    const h = harness();
    await h.createPod(shellPod('hostpath', 'exec sleep 1000'));
    await waitFor(async () => (await h.getPod('hostpath'))?.status?.phase === 'Running', WAIT);
    assert.ok(h.events.some((e) => e.type === 'Warning' && e.reason === 'ImageNotPresent'));
  });

  it('restarts a container killed for a failed liveness probe, with the Killing message', async () => {
    const h = harness();
    await h.createPod(shellPod('live', 'exec sleep 1000'));
    await waitFor(async () => condition(await h.getPod('live'), 'Ready') === 'True', WAIT);
    const pod = (await h.getPod('live'))!;
    const id = statusOf(pod)!.containerID!.replace('k8ts-process://', '');
    h.workers.killContainer(pod.metadata.uid!, 'main', id, 'Container main failed liveness probe, will be restarted');
    await waitFor(async () => {
      const s = statusOf(await h.getPod('live'));
      return s?.restartCount === 1 && s.state?.running !== undefined;
    }, WAIT);
    assert.ok(h.events.some((e) => e.reason === 'Killing' && e.message === 'Container main failed liveness probe, will be restarted'));
    const s = statusOf(await h.getPod('live'))!;
    assert.equal(s.lastState?.terminated?.containerID, `k8ts-process://${id}`);
  });

  it('reports CreateContainerConfigError when the env cannot be resolved', async () => {
    const h = harness();
    const pod = shellPod('badenv', 'exit 0');
    pod.spec!.containers[0]!.env = [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'missing', key: 'k' } } }];
    await h.createPod(pod);
    await waitFor(async () => statusOf(await h.getPod('badenv'))?.state?.waiting?.reason === 'CreateContainerConfigError', WAIT);
    assert.equal(statusOf(await h.getPod('badenv'))?.state?.waiting?.message, 'configmap "missing" not found');
  });

  it('kills a pod absent from the desired set at once and removes its sandbox; orphan sandboxes go too', async () => {
    const h = harness();
    const created = await h.createPod(shellPod('gone', 'exec sleep 1000'));
    await waitFor(async () => (await h.getPod('gone'))?.status?.phase === 'Running', WAIT);
    const orphan = await h.runtime.runtime.runPodSandbox({
      metadata: { name: 'orphan', uid: 'orphan-uid', namespace: 'default', attempt: 0 },
      hostname: 'orphan',
      logDirectory: join(h.root, 'orphan'),
      portMappings: [],
      labels: { [POD_UID_LABEL]: 'orphan-uid' },
      annotations: {},
    });
    // Force-delete the pod from the API: the kubelet no longer sees it.
    await h.client.resource<Pod>({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }).delete('gone', { namespace: 'default', gracePeriodSeconds: 0 });
    await waitFor(async () => (await h.runtime.runtime.listPodSandbox({ labelSelector: { [POD_UID_LABEL]: created.metadata.uid! } })).length === 0, WAIT);
    await waitFor(async () => (await h.runtime.runtime.listPodSandbox({ id: orphan })).length === 0, WAIT);
    await waitFor(() => h.volumes.tornDown.includes(created.metadata.uid!), WAIT);
    assert.ok(h.probes.removed.includes(created.metadata.uid!));
  });

  it("on cri, housekeeping removes the pod cgroups of pods it does not know, and keeps its own pods' cgroups", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-pod-cgroups-'));
    // The process runtime standing in for containerd (it makes no processes here: the image is absent on "cri").
    const runtime = newProcessRuntime({ stateDir: join(dir, 'state'), imagesDir: join(dir, 'images'), podCIDR: '127.244.251.0/24', pollIntervalMs: 5 });
    try {
      const cgroupRoot = join(dir, 'cgroup');
      const h = harness({ workers: { runtime: { ...runtime, name: 'cri' }, cgroupRoot, resyncIntervalMs: 100 } });
      const uid = (await h.createPod(shellPod('cgrouped', 'exec sleep 1000'))).metadata.uid!;
      const podCgroup = (name: string): string => join(cgroupRoot, 'memory', 'kubepods', 'besteffort', name);
      mkdirSync(join(podCgroup(`pod${uid}`), 'sandbox-id'), { recursive: true });
      mkdirSync(join(podCgroup('podghost'), 'sandbox-id'), { recursive: true });
      await waitFor(() => !existsSync(podCgroup('podghost')), WAIT);
      assert.ok(existsSync(join(podCgroup(`pod${uid}`), 'sandbox-id')), "the cgroup of the kubelet's own pod stays");
      assert.ok(existsSync(join(cgroupRoot, 'memory', 'kubepods', 'besteffort')), 'the QoS cgroup stays');
      await h.workers.stop();
    } finally {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps containers running while pods/status cannot be written, and catches up', async () => {
    const h = harness();
    const unavailable = Object.assign(new Error('connection refused'), {});
    h.client.injectError('patch', 'pods/status', unavailable, 5);
    await h.createPod(shellPod('offline', 'exec sleep 1000'));
    await waitFor(async () => (await h.getPod('offline'))?.status?.phase === 'Running', WAIT);
    const failed = h.client.actionsOf('patch', 'pods/status').filter((a) => a.error !== undefined);
    assert.equal(failed.length, 5);
    const uid = (await h.getPod('offline'))!.metadata.uid!;
    const running = await h.runtime.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: uid, [CONTAINER_NAME_LABEL]: 'main' } });
    assert.equal(running.length, 1);
  });

  it("writes a static pod's status to its mirror pod without a uid precondition", async () => {
    const h = harness();
    const staticPod = {
      ...shellPod('static-web', 'exec sleep 1000'),
      metadata: { name: 'static-web', namespace: 'default', uid: 'static-uid-1', annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': 'static-uid-1' } },
    } as Pod;
    staticPod.spec!.nodeName = 'node-1';
    await h.createPod({
      ...shellPod('static-web', 'exec sleep 1000'),
      metadata: { name: 'static-web', namespace: 'default', annotations: { 'kubernetes.io/config.mirror': 'static-uid-1', 'kubernetes.io/config.source': 'file' } },
    } as Pod);
    h.staticPods.push(staticPod);
    await waitFor(async () => (await h.getPod('static-web'))?.status?.phase === 'Running', WAIT);
    const patches = h.client.actionsOf('patch', 'pods/status').filter((a) => a.name === 'static-web');
    assert.ok(patches.length >= 1);
    for (const p of patches) assert.equal((p.body as { metadata?: unknown }).metadata, undefined);
    // The mirror pod itself is not run.
    const sandboxes = await h.runtime.runtime.listPodSandbox();
    assert.deepEqual(sandboxes.map((s) => s.labels[POD_UID_LABEL]), ['static-uid-1']);
  });

  it('kills a container whose postStart hook fails and runs preStop hooks on deletion', async () => {
    const h = harness();
    const marker = join(h.root, 'prestop');
    const pod = shellPod('hooks', 'exec sleep 1000');
    pod.spec!.containers[0]!.lifecycle = { preStop: { exec: { command: ['sh', '-c', `echo stopping > ${marker}`] } } };
    pod.spec!.containers.push({ name: 'bad', image: 'busybox:1.35', command: ['sh', '-c', 'exec sleep 1000'], lifecycle: { postStart: { exec: { command: ['sh', '-c', 'exit 7'] } } } });
    await h.createPod(pod);
    await waitFor(() => h.events.some((e) => e.reason === 'FailedPostStartHook'), WAIT);
    await waitFor(async () => statusOf(await h.getPod('hooks'), 'bad')?.state?.waiting !== undefined || (statusOf(await h.getPod('hooks'), 'bad')?.restartCount ?? 0) > 0, WAIT);
    await h.client.resource<Pod>({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }).delete('hooks', { namespace: 'default' });
    await waitFor(async () => (await h.getPod('hooks')) === undefined, WAIT);
    assert.equal(readFileSync(marker, 'utf8'), 'stopping\n');
  });

  it('reports a volume that cannot be set up (FailedMount) and starts nothing until it can', async () => {
    const h = harness();
    h.volumes.failWith = new VolumeError('config', 'configmap "settings" not found');
    await h.createPod(shellPod('mount', 'exec sleep 1000'));
    await waitFor(() => h.events.some((e) => e.reason === 'FailedMount' && e.message === 'MountVolume.SetUp failed for volume "config" : configmap "settings" not found'), WAIT);
    const pod = (await h.getPod('mount'))!;
    assert.equal((await h.runtime.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: pod.metadata.uid! } })).length, 0);
    h.volumes.failWith = undefined;
    await waitFor(async () => (await h.getPod('mount'))?.status?.phase === 'Running', WAIT);
  });

  it('reports a sandbox that cannot be made (FailedCreatePodSandBox); a host-network pod still runs, with the node IP', async () => {
    const h = harness({ runtime: { podCIDR: undefined as unknown as string } });
    await h.createPod(shellPod('nocidr', 'exec sleep 1000'));
    await h.createPod(shellPod('hostnet', 'exec sleep 1000', { hostNetwork: true }));
    await waitFor(() => h.events.some((e) => e.pod === 'nocidr' && e.reason === 'FailedCreatePodSandBox' && e.message.startsWith('Failed to create pod sandbox: ')), WAIT);
    await waitFor(async () => (await h.getPod('hostnet'))?.status?.phase === 'Running', WAIT);
    const hostnet = (await h.getPod('hostnet'))!;
    assert.equal(hostnet.status?.podIP, NODE_IP);
    assert.deepEqual(hostnet.status?.podIPs, [{ ip: NODE_IP }]);
    const nocidr = (await h.getPod('nocidr'))!;
    assert.equal(nocidr.status?.phase, 'Pending');
    assert.equal(condition(nocidr, 'PodReadyToStartContainers'), 'False');
    assert.equal(statusOf(nocidr)?.state?.waiting?.reason, 'ContainerCreating');
  });

  it('reports a command that cannot start (RunContainerError, then back-off)', async () => {
    const h = harness();
    const pod = shellPod('nocmd', '');
    pod.spec!.containers[0]!.command = ['/nonexistent/k8ts-command'];
    await h.createPod(pod);
    await waitFor(async () => {
      const reason = statusOf(await h.getPod('nocmd'))?.state?.waiting?.reason;
      return reason === 'RunContainerError' || reason === 'CrashLoopBackOff';
    }, WAIT);
    assert.ok(h.events.some((e) => e.pod === 'nocmd' && e.type === 'Warning' && e.reason === 'Failed' && e.message.startsWith('Error: ')));
  });

  it('retries the final delete until the API server takes it', async () => {
    const h = harness();
    await h.createPod(shellPod('retry-delete', 'exec sleep 1000'));
    await waitFor(async () => (await h.getPod('retry-delete'))?.status?.phase === 'Running', WAIT);
    const pods = h.client.resource<Pod>({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true });
    await pods.delete('retry-delete', { namespace: 'default', gracePeriodSeconds: 1 });
    h.client.injectError('delete', 'pods', serviceUnavailable('the API server is restarting'), 2);
    await waitFor(async () => (await h.getPod('retry-delete')) === undefined, WAIT);
    const deletes = h.client.actionsOf('delete', 'pods').filter((a) => a.name === 'retry-delete');
    assert.equal(deletes.filter((a) => a.error !== undefined).length, 2);
  });

  it('runs a sidecar beside the app container and stops it once a Never pod completes (Succeeded)', async () => {
    const h = harness();
    // The app container finishes only once the test has seen both containers running (no window to catch).
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-sidecar-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const release = join(dir, 'release');
    const app = `while [ ! -e ${release} ]; do sleep 0.05; done; exit 0`;
    await h.createPod({
      ...shellPod('sidecar', app, { restartPolicy: 'Never' }),
      spec: {
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 5,
        initContainers: [{ name: 'proxy', image: 'busybox:1.35', restartPolicy: 'Always', command: ['sh', '-c', 'exec sleep 1000'] }],
        containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', app] }],
      },
    } as Pod);
    await waitFor(async () => {
      const pod = await h.getPod('sidecar');
      return pod?.status?.initContainerStatuses?.[0]?.state?.running !== undefined && statusOf(pod)?.state?.running !== undefined;
    }, WAIT);
    writeFileSync(release, '');
    await waitFor(async () => (await h.getPod('sidecar'))?.status?.phase === 'Succeeded', WAIT);
    const uid = (await h.getPod('sidecar'))!.metadata.uid!;
    await waitFor(async () => (await h.runtime.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: uid }, state: 'CONTAINER_RUNNING' })).length === 0, WAIT);
  });
});
