/**
 * A pod-workers harness for tests: the real process runtime in a temporary
 * directory, the in-memory fake client, and fakes of volumes, env and probes.
 * A small loop stands in for the kubelet's pod source: it lists the fake
 * client's pods bound to the node and hands them to the workers on every
 * change (plus any static pods the test adds).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvVar } from 'kubernetes-types/core/v1.js';
import type { EventType } from '../../../client/record/interface.js';
import { PODS } from '../../../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../../../client/testing/fake-client.js';
import { newLogger } from '../../../machinery/logger.js';
import { EnvError, type EnvResolver } from '../../env/interface.js';
import type { ProbeManager } from '../../prober/interface.js';
import { newProcessRuntime, type ProcessRuntimeOptions } from '../../runtime/process/process-runtime.js';
import { containersDir, readJsonIfExists, shimStateFile, type ShimState } from '../../runtime/process/state-files.js';
import type { Pod } from '../../types.js';
import type { VolumeManager } from '../../volumes/interface.js';
import type { PodWorkers, PodWorkersOptions } from '../interface.js';
import { newPodWorkers } from '../pod-workers.js';

export const NODE_NAME = 'node-1';
export const NODE_IP = '127.0.0.1';

export interface RecordedEvent {
  readonly pod: string;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  /** involvedObject.fieldPath: the container an Event is about (`spec.containers{main}`), or '' for the pod. */
  readonly fieldPath?: string;
}

/** Probes that report every started container as started and ready, unless the test says otherwise. */
export class FakeProbes implements ProbeManager {
  readonly started: { uid: string; name: string; id: string; podIP: string }[] = [];
  readonly stopped: { uid: string; name: string }[] = [];
  readonly removed: string[] = [];
  readonly unready = new Set<string>();
  /** Pod UIDs in the order addPod saw them. */
  readonly added: string[] = [];
  addPod(pod: Pod): void {
    this.added.push(pod.metadata.uid ?? '');
  }
  containerStarted(pod: Pod, containerName: string, containerId: string, podIP: string): void {
    this.started.push({ uid: pod.metadata.uid ?? '', name: containerName, id: containerId, podIP });
  }
  containerStopped(podUid: string, containerName: string): void {
    this.stopped.push({ uid: podUid, name: containerName });
  }
  removePod(podUid: string): void {
    this.removed.push(podUid);
  }
  isReady(_podUid: string, containerName: string): boolean {
    return !this.unready.has(containerName);
  }
  isStarted(): boolean {
    return true;
  }
  stop(): void {}
}

/** Env from `value` only; any valueFrom is an unresolvable reference (EnvError with upstream's wording for a configMap). */
export const fakeEnv: EnvResolver = {
  async containerEnv(_pod, container) {
    return (container.env ?? []).map((e: EnvVar) => {
      if (e.valueFrom !== undefined) throw new EnvError(`configmap "${e.valueFrom.configMapKeyRef?.name ?? 'x'}" not found`);
      return { key: e.name, value: e.value ?? '' };
    });
  },
};

export class FakeVolumes implements VolumeManager {
  readonly tornDown: string[] = [];
  failWith: Error | undefined;
  /** When set, setUpPod waits for it (a sync held in its volumes). */
  hold: Promise<void> | undefined;
  /** setUpPod calls waiting on `hold` now. */
  held = 0;
  async setUpPod(): Promise<ReadonlyMap<string, string>> {
    if (this.hold !== undefined) {
      this.held++;
      await this.hold.finally(() => this.held--);
    }
    if (this.failWith !== undefined) throw this.failWith;
    return new Map();
  }
  async tearDownPod(podUid: string): Promise<void> {
    this.tornDown.push(podUid);
  }
  async podsOnDisk(): Promise<string[]> {
    return [];
  }
}

export interface Harness {
  readonly root: string;
  readonly logsDir: string;
  readonly client: FakeClient;
  readonly runtime: ReturnType<typeof newProcessRuntime>;
  readonly runtimeOptions: ProcessRuntimeOptions;
  readonly events: RecordedEvent[];
  readonly probes: FakeProbes;
  readonly volumes: FakeVolumes;
  workers: PodWorkers;
  readonly staticPods: Pod[];
  /** A new PodWorkers over the same runtime state (a kubelet restart); the old one is stopped first. */
  restart(): Promise<void>;
  /** Create a pod bound to the node through the fake client; returns it as stored. */
  createPod(pod: Pod): Promise<Pod>;
  getPod(name: string, namespace?: string): Promise<Pod | undefined>;
  dispose(): Promise<void>;
}

export interface HarnessOptions {
  readonly runtime?: Partial<ProcessRuntimeOptions>;
  readonly workers?: Partial<PodWorkersOptions>;
}

/** Kills every shim and container process recorded under stateDir. */
function killEverything(stateDir: string): void {
  let ids: string[] = [];
  try {
    ids = readdirSync(containersDir(stateDir));
  } catch {
    return;
  }
  for (const id of ids) {
    const state = readJsonIfExists<ShimState>(shimStateFile(join(containersDir(stateDir), id)));
    if (!state) continue;
    for (const target of [-state.pid, state.shimPid]) {
      if (target === 0) continue;
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

let cidr = 10;

export function newHarness(options: HarnessOptions = {}): Harness {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-pod-workers-'));
  const runtimeOptions: ProcessRuntimeOptions = {
    stateDir: join(root, 'state'),
    imagesDir: join(root, 'images'),
    podCIDR: `127.244.${cidr++ % 250}.0/24`,
    pollIntervalMs: 5,
    ...options.runtime,
  };
  const runtime = newProcessRuntime(runtimeOptions);
  const client = newFakeClient();
  const events: RecordedEvent[] = [];
  const probes = new FakeProbes();
  const volumes = new FakeVolumes();
  const logsDir = join(root, 'logs');
  const staticPods: Pod[] = [];
  const make = (): PodWorkers =>
    newPodWorkers({
      nodeName: NODE_NAME,
      nodeIPs: [NODE_IP],
      rootDir: join(root, 'kubelet'),
      logsDir,
      runtime: newProcessRuntime(runtimeOptions),
      volumes,
      containerMounts: () => [],
      env: fakeEnv,
      probes,
      client,
      events: {
        event: (object, type, reason, message, options) => events.push({ pod: object.metadata.name ?? '', type, reason, message, fieldPath: options?.fieldPath ?? '' }),
      },
      logger: newLogger('pod-workers-test', { level: process.env.K8TS_TEST_LOG ?? 'silent' }),
      backoff: { initialMs: 200, maxMs: 800, resetAfterMs: 60_000 },
      resyncIntervalMs: 60_000,
      relistIntervalMs: 20,
      statusRetryIntervalMs: 50,
      node: () => undefined,
      ...options.workers,
    });

  const pods = client.resource<Pod>(PODS);
  let lastKey = '';
  let feeding = false;
  const feed = async (): Promise<void> => {
    if (feeding) return;
    feeding = true;
    try {
      const list = await pods.list({ fieldSelector: `spec.nodeName=${NODE_NAME}` });
      const all = [...list.items, ...staticPods];
      const key = all.map((p) => `${p.metadata.uid}:${p.metadata.resourceVersion ?? ''}`).join(',');
      if (key !== lastKey) {
        lastKey = key;
        harness.workers.update(all);
      }
    } finally {
      feeding = false;
    }
  };
  const feeder = setInterval(() => void feed(), 10);

  const harness: Harness = {
    root,
    logsDir,
    client,
    runtime,
    runtimeOptions,
    events,
    probes,
    volumes,
    workers: make(),
    staticPods,
    async restart() {
      await harness.workers.stop();
      harness.workers = make();
      lastKey = '';
    },
    async createPod(pod) {
      return pods.create({ ...pod, spec: { nodeName: NODE_NAME, ...pod.spec } } as Pod, { namespace: pod.metadata.namespace ?? 'default' });
    },
    async getPod(name, namespace = 'default') {
      try {
        return await pods.get(name, { namespace });
      } catch {
        return undefined;
      }
    },
    async dispose() {
      clearInterval(feeder);
      await harness.workers.stop();
      killEverything(runtimeOptions.stateDir);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return harness;
}

/** A pod with one container running `script` in sh. */
export function shellPod(name: string, script: string, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      containers: [{ name: 'main', image: 'busybox:1.35', command: ['sh', '-c', script] }],
      terminationGracePeriodSeconds: 5,
      ...extra,
    },
  } as Pod;
}
