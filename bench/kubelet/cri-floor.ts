/**
 * The floor of pod startup on containerd, with no kubelet and no API server:
 * `count` pods at once, each RunPodSandbox (pod network: the node's CNI bridge
 * + host-local) → CreateContainer → StartContainer through our CRI client,
 * each timed from the moment the burst starts. bench:kubelet runs one such
 * burst on the cri node's own containerd after each of its bursts, so the
 * kubelet's figures and this floor see the same machine load.
 *
 * The sandboxes carry no io.kubernetes.pod.uid label, so the kubelet's relist
 * and housekeeping leave them alone; they are stopped and removed before the
 * burst resolves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCriRuntime } from '../../src/kubelet/runtime/cri/cri-runtime.js';
import type { ContainerConfig, PodSandboxConfig } from '../../src/kubelet/runtime/interface.js';

export interface FloorBurst {
  /** Per pod, ms from the start of the burst to the end of each step. */
  readonly pods: readonly { readonly sandboxRunning: number; readonly created: number; readonly started: number }[];
  /** CPU ms containerd and everything it ran (shims, runc, CNI plugins) spent starting the pods, when `cpuMs` was given. */
  readonly startCpuMs: number;
}

export interface FloorBurstOptions {
  /** containerd's CRI endpoint (its pod CIDR already set). */
  readonly endpoint: string;
  readonly count: number;
  /** Pod names are `<prefix>-<i>`. */
  readonly prefix: string;
  readonly image: string;
  /** Reads the CPU ms containerd's process tree has used so far (NaN when unknown). */
  readonly cpuMs?: () => number;
}

const sandboxConfig = (name: string, logDirectory: string): PodSandboxConfig => ({
  metadata: { name, uid: `${name}-uid`, namespace: 'bench-floor', attempt: 0 },
  hostname: name,
  logDirectory,
  portMappings: [],
  labels: {},
  annotations: {},
  linux: { namespaceOptions: { network: 'POD', pid: 'CONTAINER', ipc: 'POD' } },
});

const containerConfig = (image: string): ContainerConfig => ({
  metadata: { name: 'sleep', attempt: 0 },
  image,
  command: ['sleep', '3600'],
  args: [],
  envs: [],
  mounts: [],
  labels: {},
  annotations: {},
  logPath: 'sleep/0.log',
  stdin: false,
  stdinOnce: false,
  tty: false,
});

export async function criFloorBurst(options: FloorBurstOptions): Promise<FloorBurst> {
  const cri = newCriRuntime({ endpoint: options.endpoint, timeoutMs: 120_000 });
  const rt = cri.runtime;
  const logs = await mkdtemp(join(tmpdir(), 'k8ts-cri-floor-'));
  const sandboxes: string[] = [];
  try {
    const cpuBefore = options.cpuMs?.() ?? Number.NaN;
    const t0 = performance.now();
    const settled = await Promise.allSettled(
      Array.from({ length: options.count }, async (_, i) => {
        const name = `${options.prefix}-${i}`;
        const config = sandboxConfig(name, join(logs, name));
        const id = await rt.runPodSandbox(config);
        sandboxes.push(id);
        const sandboxRunning = performance.now() - t0;
        const containerId = await rt.createContainer(id, containerConfig(options.image), config);
        const created = performance.now() - t0;
        await rt.startContainer(containerId);
        return { sandboxRunning, created, started: performance.now() - t0 };
      }),
    );
    const startCpuMs = (options.cpuMs?.() ?? Number.NaN) - cpuBefore;
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) throw new Error(`floor burst ${options.prefix}: ${failed.reason instanceof Error ? failed.reason.message : String(failed.reason)}`, { cause: failed.reason });
    return { pods: settled.map((s) => (s as PromiseFulfilledResult<FloorBurst['pods'][number]>).value), startCpuMs };
  } finally {
    // Stopping a sandbox stops its container; removing it removes the container.
    await Promise.allSettled(sandboxes.map(async (id) => {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    }));
    await cri.close();
    await rm(logs, { recursive: true, force: true });
  }
}
