/**
 * npm run bench:kubelet — pod startup latency through a real cluster, on
 * each runtime, as issue 8 asks (BENCH_KUBELET_RUNTIMES=process,cri; both by
 * default):
 * - process: the kubelet of a real `k8ts server` (temp data dir, free port;
 *   containers are host processes);
 * - cri: a `k8ts server` with no node of its own and one worker node on a real
 *   containerd in a network namespace of its own (test/e2e/kubelet/testing/
 *   cri-node.ts: private containerd, CNI bridge, busybox and pause imported);
 *   skipped, with the reason, where containerd cannot run (no root).
 *
 * First 20 pods (busybox:1.35, `sleep 3600`) are created one at a time, each
 * once the previous is Ready (startup_one_at_a_time_*: a pod on an idle node).
 * Then 100 pods are created through the API in bursts of 10: the 10 creates of
 * a burst are sent at once, and the next burst starts when all 10 are Ready. A
 * watch opened before the first create times each pod on the client, at
 * millisecond precision, from the moment its create is sent:
 *   startup_p50_ms_process / startup_p99_ms_process       to Ready, in bursts (the headline figures)
 *   observed_{scheduled,running}_p50/p99_ms_process       to the first event showing it scheduled / its container running
 * The pods' own timestamps (second precision in the API) give each stage from creationTimestamp:
 *   ts_scheduled_*        PodScheduled lastTransitionTime
 *   ts_sandbox_ready_*    PodReadyToStartContainers lastTransitionTime
 *   ts_containers_started_*  the container's state.running.startedAt
 *   ts_ready_*            Ready lastTransitionTime
 * cri only, the floor: after each burst is Ready, one burst of 10 pods started
 * straight on the node's containerd through our CRI client, with no kubelet
 * (RunPodSandbox → CreateContainer → StartContainer, cri-floor.ts), then removed:
 *   floor_p50_ms_cri / floor_p99_ms_cri   from the floor burst's start to each pod's StartContainer answer
 *   startup_p99_over_floor_cri            startup_p99_ms_cri / floor_p99_ms_cri (the kubelet's share; robust to load)
 *   containerd_cpu_ms_per_pod_cri         CPU of containerd and what it runs (shims, runc, CNI) per floor pod started
 * Then every pod is deleted (seconds_to_delete_all: until the watch has seen them all go), the
 * server stopped, and any container still running ended (killNodeContainers).
 *
 * Every key ends in the runtime's name (startup_p99_ms_process, startup_p99_ms_cri, …).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newHttpClient } from '../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { NODES, PODS, SERVICE_ACCOUNTS } from '../../src/client/rest/resources.js';
import type { Node, Pod } from '../../src/kubelet/types.js';
import { StatusError } from '../../src/machinery/status.js';
import { killNodeContainers } from '../../test/e2e/kubelet/testing/agent-containers.js';
import { startCriNode, type CriNode } from '../../test/e2e/kubelet/testing/cri-node.js';
import { containerdUnavailableReason } from '../../test/e2e/testing/containerd.js';
import { startK8ts, type K8tsProcess } from '../../test/e2e/testing/k8ts-process.js';
import { machineDescription, percentile, printResults, round, writeResults } from '../common/stats.js';
import { criFloorBurst } from './cri-floor.js';
import { trackProcessTreeCpu, type ProcessTreeCpu } from './process-tree-cpu.js';
import { StartupTracker } from './startup-tracker.js';

const POD_COUNT = 100;
const BURST = 10;
/** Pods created one at a time before the bursts. */
const SEQUENTIAL_COUNT = 20;
const NAMESPACE = 'default';
const LABEL = 'bench=kubelet-startup';
const IMAGE = 'busybox:1.35';
const progress = (what: string): void => void process.stderr.write(`bench:kubelet: ${what}\n`);
// Logging at info for 100 pods would cost the server CPU the pods need.
process.env.K8TS_LOG_LEVEL ??= 'warn';

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await read();
      if (value !== undefined) return value;
    } catch (e: unknown) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const podManifest = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NAMESPACE, labels: { bench: 'kubelet-startup' } },
  spec: {
    containers: [{ name: 'sleep', image: IMAGE, command: ['sleep', '3600'] }],
    terminationGracePeriodSeconds: 5,
  },
});

/** ms from the pod's creationTimestamp to each stage, from the pod's own (second-precision) timestamps. */
function stageTimestamps(pod: Pod): Record<'scheduled' | 'sandbox_ready' | 'containers_started' | 'ready', number> {
  const created = Date.parse(pod.metadata.creationTimestamp ?? '');
  const condition = (type: string): number => {
    const c = pod.status?.conditions?.find((x) => x.type === type && x.status === 'True');
    return Date.parse(c?.lastTransitionTime ?? '') - created;
  };
  const startedAt = (pod.status?.containerStatuses ?? []).map((s) => Date.parse(s.state?.running?.startedAt ?? ''));
  return {
    scheduled: condition('PodScheduled'),
    sandbox_ready: condition('PodReadyToStartContainers'),
    // Containers started: when the last of them started (one container here).
    containers_started: startedAt.length === 0 ? Number.NaN : Math.max(...startedAt) - created,
    ready: condition('Ready'),
  };
}

const finite = (values: readonly number[]): number[] => values.filter((v) => Number.isFinite(v));

/** The figures of earlier runs (a runtime not measured this time keeps its keys). */
function previousResults(): Record<string, number | string> {
  const path = fileURLToPath(new URL('../../../bench/results/kubelet.json', import.meta.url));
  const previous = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number | string>) : {};
  return Object.fromEntries(Object.entries(previous).filter(([k]) => k.endsWith('_process') || k.endsWith('_cri')));
}

type Runtime = 'process' | 'cri';

/** Start the cluster, create and delete the pods, and return the figures (keys ending in `_<runtime>`). */
async function measure(runtime: Runtime): Promise<Record<string, number>> {
console.log(`bench:kubelet (${runtime} runtime): ${POD_COUNT} pods in bursts of ${BURST}`);
const root = mkdtempSync(join(tmpdir(), 'bench-kubelet-'));
const dataDir = join(root, 'data');
let server: K8tsProcess | undefined;
let client: ReturnType<typeof newHttpClient> | undefined;
let tracker: StartupTracker | undefined;
let criNode: CriNode | undefined;
let containerdCpu: ProcessTreeCpu | undefined;
try {
  // The cri cluster's server has no node of its own and upstream's address ranges (DESIGN §5).
  const serverArgs = runtime === 'cri' ? ['--disable-agent', '--cluster-cidr', '10.244.0.0/16', '--service-cluster-ip-range', '10.96.0.0/12'] : [];
  server = startK8ts(['server', '--data-dir', dataDir, '--secure-port', '0', ...serverArgs]);
  const line = await server.waitForLine(/^export KUBECONFIG=/, 120_000);
  const kubeconfig = line.slice('export KUBECONFIG='.length).trim();
  client = newHttpClient(restConfigFromKubeconfig(kubeconfig, { qps: 1000, burst: 1000, userAgent: 'bench-kubelet' }));
  const api = client;
  if (runtime === 'cri') {
    progress('starting a containerd node in a network namespace');
    criNode = await startCriNode({ serverDataDir: dataDir, apiServerPort: Number(new URL(restConfigFromKubeconfig(kubeconfig).server).port), nodeName: 'bench-cri-node' });
    containerdCpu = trackProcessTreeCpu(criNode.containerd.pid, `k8ts-bench-kubelet-${process.pid}`);
    if (containerdCpu.unavailable !== undefined) progress(`no CPU figure for containerd: ${containerdCpu.unavailable}`);
  }

  progress('waiting for the node to be Ready');
  const nodeName = await poll(
    async () => {
      const nodes = await api.resource<Node>(NODES).list();
      return nodes.items.find((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))?.metadata.name;
    },
    'a Ready node',
    120_000,
  );
  // Pods are refused until `default` exists (ServiceAccount admission): make it rather than wait for the controller.
  try {
    await api.resource(SERVICE_ACCOUNTS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NAMESPACE } });
  } catch (e: unknown) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  }

  const pods = api.resource<Pod>(PODS);
  const resourceVersion = (await pods.list({ namespace: NAMESPACE, labelSelector: LABEL, limit: 1 })).metadata.resourceVersion ?? '';
  const t = new StartupTracker({ pods, namespace: NAMESPACE, labelSelector: LABEL, resourceVersion });
  tracker = t;
  const names = Array.from({ length: POD_COUNT }, (_, i) => `startup-${String(i).padStart(3, '0')}`);
  // First one pod at a time, each created once the previous is Ready: the latency of a pod on an idle node,
  // as upstream's density test measures its "latency pods" apart from the saturating ones.
  const alone = Array.from({ length: SEQUENTIAL_COUNT }, (_, i) => `alone-${String(i).padStart(3, '0')}`);
  progress(`node ${nodeName} Ready; creating ${SEQUENTIAL_COUNT} pods one at a time`);
  for (const name of alone) {
    t.sent(name);
    await pods.create(podManifest(name));
    await t.until(() => t.startups.get(name)?.readyAt !== undefined, `pod ${name} Ready`, 120_000);
  }
  const aloneToReady = alone.map((n) => t.startups.get(n)!.readyAt! - t.startups.get(n)!.sentAt);
  // Gone before the bursts, so that all 100 fit on the node (--max-pods 110) and none competes with them.
  await Promise.all(alone.map((name) => pods.delete(name, { namespace: NAMESPACE })));
  await t.until(() => alone.every((n) => t.startups.get(n)?.deletedAt !== undefined), 'the one-at-a-time pods deleted', 120_000);

  progress(`node ${nodeName} Ready; creating ${POD_COUNT} pods, ${BURST} at a time`);
  const started = performance.now();
  let burstsMs = 0;
  const floorStarts: number[] = [];
  let floorCpuMs = 0;
  for (let b = 0; b < names.length; b += BURST) {
    const burstStarted = performance.now();
    const burst = names.slice(b, b + BURST);
    await Promise.all(
      burst.map((name) => {
        t.sent(name);
        return pods.create(podManifest(name));
      }),
    );
    await t.until(() => burst.every((n) => t.startups.get(n)?.readyAt !== undefined), `pods ${burst[0]}…${burst.at(-1)} Ready`, 120_000);
    burstsMs += performance.now() - burstStarted;
    if (criNode !== undefined) {
      // The floor under the same load: the same number of pods straight on containerd, no kubelet.
      const floor = await criFloorBurst({ endpoint: criNode.containerd.endpoint, count: BURST, prefix: `floor-${b}`, image: IMAGE, cpuMs: () => containerdCpu?.read() ?? Number.NaN });
      floorStarts.push(...floor.pods.map((p) => p.started));
      floorCpuMs += floor.startCpuMs;
    }
  }
  const allReadySeconds = burstsMs / 1000;

  const startups = names.map((n) => t.startups.get(n)!);
  const toReady = startups.map((s) => s.readyAt! - s.sentAt);
  const toScheduled = finite(startups.map((s) => (s.scheduledAt ?? Number.NaN) - s.sentAt));
  const toRunning = finite(startups.map((s) => (s.runningAt ?? Number.NaN) - s.sentAt));
  const stages = (await pods.list({ namespace: NAMESPACE, labelSelector: LABEL })).items.map(stageTimestamps);
  const stage = (key: keyof ReturnType<typeof stageTimestamps>): number[] => finite(stages.map((s) => s[key]));

  progress('deleting the pods');
  const deleteStarted = performance.now();
  await Promise.all(names.map((name) => pods.delete(name, { namespace: NAMESPACE })));
  let deleteSeconds = Number.NaN;
  try {
    await t.until(() => names.every((n) => t.startups.get(n)?.deletedAt !== undefined), 'every pod deleted', 180_000);
    deleteSeconds = (performance.now() - deleteStarted) / 1000;
  } catch (e: unknown) {
    progress(`${e instanceof Error ? e.message : String(e)}: the containers left are ended below`);
  }
  if (t.reopened > 0) progress(`the pods watch was reopened ${t.reopened} time(s)`);

  const figures: Record<string, number> = {
    startup_p50_ms: round(percentile(toReady, 50), 1),
    startup_p99_ms: round(percentile(toReady, 99), 1),
    startup_max_ms: round(Math.max(...toReady), 1),
    startup_one_at_a_time_p50_ms: round(percentile(aloneToReady, 50), 1),
    startup_one_at_a_time_p99_ms: round(percentile(aloneToReady, 99), 1),
    observed_scheduled_p50_ms: round(percentile(toScheduled, 50), 1),
    observed_scheduled_p99_ms: round(percentile(toScheduled, 99), 1),
    observed_running_p50_ms: round(percentile(toRunning, 50), 1),
    observed_running_p99_ms: round(percentile(toRunning, 99), 1),
    ts_scheduled_p50_ms: percentile(stage('scheduled'), 50),
    ts_scheduled_p99_ms: percentile(stage('scheduled'), 99),
    ts_sandbox_ready_p50_ms: percentile(stage('sandbox_ready'), 50),
    ts_sandbox_ready_p99_ms: percentile(stage('sandbox_ready'), 99),
    ts_containers_started_p50_ms: percentile(stage('containers_started'), 50),
    ts_containers_started_p99_ms: percentile(stage('containers_started'), 99),
    ts_ready_p50_ms: percentile(stage('ready'), 50),
    ts_ready_p99_ms: percentile(stage('ready'), 99),
    seconds_to_all_ready: round(allReadySeconds, 2),
    ...(floorStarts.length > 0
      ? {
          floor_p50_ms: round(percentile(floorStarts, 50), 1),
          floor_p99_ms: round(percentile(floorStarts, 99), 1),
          startup_p99_over_floor: round(percentile(toReady, 99) / percentile(floorStarts, 99), 2),
          containerd_cpu_ms_per_pod: round(floorCpuMs / floorStarts.length, 1),
        }
      : {}),
    seconds_to_delete_all: round(deleteSeconds, 2),
  };
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${k}_${runtime}`, v]));
} finally {
  await tracker?.stop();
  client?.close();
  await criNode?.stop();
  if (containerdCpu !== undefined && containerdCpu.unavailable === undefined && !containerdCpu.remove()) progress('the CPU cgroup of containerd could not be removed');
  await server?.stop();
  // Containers outlive their kubelet (as upstream's): end any the deletes did not.
  const killed = await killNodeContainers(join(dataDir, 'kubelet'));
  if (killed > 0) progress(`ended ${killed} container(s) still running after the server stopped`);
  rmSync(root, { recursive: true, force: true });
}
}

const wanted = (process.env.BENCH_KUBELET_RUNTIMES ?? 'process,cri').split(',').filter((r): r is Runtime => r === 'process' || r === 'cri');
console.log(`bench:kubelet on ${machineDescription()}: ${wanted.join(' and ')} runtime(s)`);
const measured: Record<string, number> = {};
const skipped: string[] = [];
for (const runtime of wanted) {
  const unavailable = runtime === 'cri' ? await containerdUnavailableReason() : undefined;
  if (unavailable !== undefined) {
    progress(`cri skipped: ${unavailable}`);
    skipped.push(`cri: ${unavailable}`);
    continue;
  }
  Object.assign(measured, await measure(runtime));
}
{
  const results: Record<string, number | string> = {
    ...previousResults(),
    machine: machineDescription(),
    pods: POD_COUNT,
    burst_size: BURST,
    ...measured,
    notes:
      'startup_* and observed_*: client-side, ms precision, from sending the create to the first watch event showing the stage; ' +
      'ts_*: from the pods\' own timestamps (second precision) relative to creationTimestamp. ' +
      `startup_one_at_a_time_*: ${SEQUENTIAL_COUNT} pods first, each created once the previous is Ready. ` +
      `Then the headline figures: bursts of ${BURST} creates sent at once, the next burst once all of the previous are Ready. ` +
      'cri: a worker node on a private containerd in a network namespace of its own (CNI bridge), busybox and pause imported locally; ' +
      `floor_*: after each burst, ${BURST} pods started straight on that containerd through the CRI (no kubelet), from the burst's start to each StartContainer answer; ` +
      'containerd_cpu_ms_per_pod: CPU of containerd, its shims, runc and the CNI plugins per floor pod started.' +
      (skipped.length > 0 ? ` Not measured in the last run: ${skipped.join('; ')} (the figures of an earlier run stay).` : ''),
  };
  printResults(results);
  console.log(`wrote ${writeResults('kubelet', results)}`);
}
