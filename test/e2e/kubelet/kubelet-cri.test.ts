/**
 * The kubelet's own bookkeeping on the cri runtime, on one small cluster: a
 * `k8ts server` with no node of its own and one worker node on a real
 * containerd inside a network namespace the test creates
 * (testing/cri-node.ts), as journey-cri.test.ts has, without the journey.
 *
 * - A graceful stop cut short (resilience.test.ts shows it on the process
 *   runtime): a container that ignores SIGTERM, deleted with a long grace
 *   period, is killed at once by a second delete with a shorter one or by
 *   `kubectl delete --grace-period=0 --force`.
 * - Orphaned pod cgroups: a pod cgroup under /kubepods whose pod the kubelet
 *   does not know is removed by its housekeeping, unless a process is in it.
 *
 * Skipped, with the reason, only where containerd cannot run (no root,
 * cgroups, overlayfs or network namespaces).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import type { ResourceClient } from '../../../src/client/rest/interface.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { PODS } from '../../../src/client/rest/resources.js';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { newCriRuntime } from '../../../src/kubelet/runtime/cri/cri-runtime.js';
import type { ContainerRuntime } from '../../../src/kubelet/runtime/interface.js';
import type { Pod } from '../../../src/kubelet/types.js';
import { KUBELET_TIMERS, startJourneyServer, type JourneyServer } from '../journey/testing/journey-cluster.js';
import { containerdUnavailableReason, startPrivateContainerd } from '../testing/containerd.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import { startCriNode, type CriNode } from './testing/cri-node.js';
import { cutGracefulStopShort, FORCED } from './testing/graceful-stop-cut-short.js';

const skip = await containerdUnavailableReason();
const NODE = 'kubelet-cri';

const mainStatus = (pod: Pod | undefined): ContainerStatus | undefined => pod?.status?.containerStatuses?.find((s) => s.name === 'main');

/** The cgroup hierarchies a test pod cgroup is made in: two v1 controllers, or the unified hierarchy on v2. */
const HIERARCHIES = existsSync('/sys/fs/cgroup/memory') ? ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids'] : ['/sys/fs/cgroup'];

/** A BestEffort pod cgroup for `uid` with one container cgroup in it, in every test hierarchy; returns the container cgroups. */
function makePodCgroup(uid: string): string[] {
  return HIERARCHIES.map((h) => {
    const container = join(h, 'kubepods', 'besteffort', `pod${uid}`, 'container');
    mkdirSync(container, { recursive: true });
    return container;
  });
}

const podCgroupExists = (uid: string): boolean => HIERARCHIES.some((h) => existsSync(join(h, 'kubepods', 'besteffort', `pod${uid}`)));

/** rmdir what makePodCgroup made, should the kubelet not have (deepest first; busy or missing ones stay). */
function removePodCgroupDirs(uid: string): void {
  for (const h of HIERARCHIES) {
    for (const dir of [join(h, 'kubepods', 'besteffort', `pod${uid}`, 'container'), join(h, 'kubepods', 'besteffort', `pod${uid}`)]) {
      try {
        rmdirSync(dir);
      } catch {
        // gone or busy
      }
    }
  }
}

describe('the kubelet on the cri runtime (containerd in a network namespace)', { timeout: 240_000, ...(skip !== undefined ? { skip } : {}) }, () => {
  let server: JourneyServer;
  let node: CriNode;
  let kubectl: Kubectl;
  let http: HttpClient;
  let pods: ResourceClient<Pod>;
  /** The test's own connection to the node's containerd. */
  let cri: ContainerRuntime;

  const until = (description: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> =>
    waitFor(check, { timeoutMs, intervalMs: 200, description }).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}; the kubelet's output ends:\n${node?.kubelet().output().split('\n').slice(-15).join('\n')}`);
    });

  before(async () => {
    // containerd and its images (the slow part) come up while the server starts.
    const [started, containerd] = await Promise.allSettled([
      startJourneyServer({ name: 'kubelet-cri', agent: false, extraArgs: ['--cluster-cidr', '10.244.0.0/16', '--service-cluster-ip-range', '10.96.0.0/12'] }),
      // The kubelet puts pods under /kubepods (cgroupfs); what is left there at the end is removed at stop.
      startPrivateContainerd({ cgroupParents: ['/kubepods'] }),
    ]);
    if (started.status === 'fulfilled') server = started.value;
    if (started.status === 'rejected' || containerd.status === 'rejected') {
      if (containerd.status === 'fulfilled') await containerd.value.stop();
      throw started.status === 'rejected' ? started.reason : (containerd as PromiseRejectedResult).reason;
    }
    node = await startCriNode({
      serverDataDir: server.dataDir,
      apiServerPort: server.apiServerPort,
      nodeName: NODE,
      containerd: containerd.value,
      kubeletArgs: KUBELET_TIMERS,
    });
    cri = newCriRuntime({ endpoint: node.containerd.endpoint, timeoutMs: 30_000 });
    kubectl = newKubectl('1.32', server.kubeconfig);
    http = newHttpClient(restConfigFromKubeconfig(server.kubeconfig));
    pods = http.resource<Pod>(PODS);
    await kubectl.ok('wait', '--for=create', `node/${NODE}`, '--timeout=90s');
    await kubectl.ok('wait', '--for=condition=Ready', `node/${NODE}`, '--timeout=90s');
    await kubectl.ok('wait', '--for=create', 'serviceaccount/default', '--timeout=60s');
  });

  after(async () => {
    http?.close();
    await cri?.close();
    try {
      await node?.stop();
    } finally {
      await server?.stop();
    }
  });

  it('cuts a graceful stop short: a second delete with a shorter grace period, or delete --grace-period=0 --force, kills the container at once', async () => {
    /** The container's state in containerd; undefined once removed. */
    const state = async (pod: Pod): Promise<string | undefined> =>
      (await cri.runtime.listContainers({ id: (mainStatus(pod)?.containerID ?? '').replace(/^containerd:\/\//, '') }))[0]?.state;
    const stubborn = await cutGracefulStopShort({ pods, kubectl, until, containerRunning: async (pod) => async () => (await state(pod)) === 'CONTAINER_RUNNING' });
    await until("the forced pod's container removed (the pod is gone from the desired set)", async () => (await state(stubborn.get(FORCED)!)) === undefined, 30_000);
  });

  it('kubectl debug --target runs an ephemeral container in the target container\'s process namespace', async () => {
    await kubectl.ok('run', 'debug-target', '--image=busybox:1.35', '--restart=Never', '--command', '--', 'sleep', '3601');
    await kubectl.ok('wait', '--for=condition=Ready', 'pod/debug-target', '--timeout=90s');
    await kubectl.ok('debug', 'debug-target', '--image=busybox:1.35', '-c', 'dbg', '--target=debug-target', '--', 'ps');
    const ephemeral = async (): Promise<string> => {
      const pod = await pods.get('debug-target', { namespace: 'default' });
      return Object.keys(pod.status?.ephemeralContainerStatuses?.find((s) => s.name === 'dbg')?.state ?? {})[0] ?? '';
    };
    await until('the ephemeral container to run and exit', async () => (await ephemeral()) === 'terminated');
    // Its own pid namespace would show only its ps; the target's holds the sleep.
    assert.match(await kubectl.ok('logs', 'debug-target', '-c', 'dbg'), /sleep 3601/);
    await kubectl.ok('delete', 'pod', 'debug-target', '--grace-period=0', '--force');
  });

  it('removes a pod cgroup under /kubepods whose pod it does not know, never one with a process in it', async () => {
    const orphan = randomUUID();
    const later = randomUUID();
    const busy = randomUUID();
    let sleeper: ChildProcess | undefined;
    try {
      // A process of the test's own, moved into the busy pod's container cgroup in every test hierarchy.
      sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
      const sleeperExited = new Promise<void>((resolve) => sleeper!.once('exit', () => resolve()));
      for (const container of makePodCgroup(busy)) writeFileSync(join(container, 'cgroup.procs'), String(sleeper.pid));
      makePodCgroup(orphan);
      await until("the orphaned pod's cgroup removed by housekeeping", () => !podCgroupExists(orphan), 30_000);
      // One made after that removal goes only after a housekeeping pass that began later and found the busy one too.
      makePodCgroup(later);
      await until('a second orphaned pod cgroup removed', () => !podCgroupExists(later), 30_000);
      assert.ok(podCgroupExists(busy), 'the pod cgroup with a process in it stays');

      sleeper.kill('SIGKILL');
      await sleeperExited;
      await until('the busy pod cgroup removed once its process ended', () => !podCgroupExists(busy), 30_000);
    } finally {
      if (sleeper?.exitCode === null && sleeper.signalCode === null) sleeper.kill('SIGKILL');
      for (const uid of [orphan, later, busy]) removePodCgroupDirs(uid);
    }
  });
});
