/**
 * npm run bench:journey — step 1 of the journey (issue 10) at 30 replicas, on
 * each runtime (BENCH_JOURNEY_RUNTIMES=process,cri; both by default): a copy
 * of examples/hello.yaml with 30 replicas is applied with the real kubectl,
 * and the pods are followed through `kubectl get -w` exactly as the journey
 * test does (test/e2e/journey/testing/: stages.ts, journey-steps.ts):
 * - process: `k8ts server` and one `k8ts agent` at 127.0.0.2, as in
 *   journey-process.test.ts;
 * - cri: a `k8ts server` with no node and one worker node on a private
 *   containerd in a network namespace (journey-cri.test.ts); skipped, with
 *   the reason, where containerd cannot run.
 *
 * The clusters run with their default timers (`k8ts server` as `npm start` starts it; the journey test shortens
 * them for its failure steps, which step 1 does not need): a 1 s pod sync period, for one, would have every kubelet
 * resync all its pods every second, work that a user's cluster does not do and that competes with the starts.
 *
 * Written to bench/results/journey.json, flat, every key ending in the runtime:
 *   apply_to_all_ready_ms_*         from just before `kubectl apply` to the watch event showing the last pod Ready
 *   apply_to_all_in_endpoints_ms_*  … to the last pod listed as a ready endpoint
 *   {scheduled,running,ready,endpoints}_{p50,p99}_ms_*  each step per pod: created→scheduled (control plane),
 *     scheduled→running and running→ready (node), ready→in endpoints (endpoint slice controller)
 *   cpu_s_{GROUP}_*                 CPU seconds each group of processes used from apply to the last pod in endpoints
 *     (cpu-accounting.ts: apiserver, kubelet, containers, …, other), and cpu_s_machine_* all the machine's busy time:
 *     on a machine the bench saturates, the makespan follows that total
 */
import { join } from 'node:path';
import { hostname } from 'node:os';
import { containerdUnavailableReason } from '../../test/e2e/testing/containerd.js';
import { newKubectl } from '../../test/e2e/testing/kubectl.js';
import { startCriNode, type CriNode } from '../../test/e2e/kubelet/testing/cri-node.js';
import { writeHelloCopy } from '../../test/e2e/journey/testing/hello-manifest.js';
import { buildProcessImage, startJourneyServer, startAgentNode, type JourneyServer, type AgentNode } from '../../test/e2e/journey/testing/journey-cluster.js';
import { Journey } from '../../test/e2e/journey/testing/journey-steps.js';
import { hostServiceClient } from '../../test/e2e/journey/testing/service-client.js';
import { stepPercentiles } from '../../test/e2e/journey/testing/stages.js';
import { machineDescription, printResults, round, writeResults } from '../common/stats.js';
import { cpuSecondsBetween, cpuSnapshot } from './cpu-accounting.js';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Runtime = 'process' | 'cri';
const REPLICAS = 30;
const progress = (what: string): void => void process.stderr.write(`bench:journey: ${what}\n`);
// Logging at info for 30 pods would cost the components CPU the pods need.
process.env.K8TS_LOG_LEVEL ??= 'warn';

function previousResults(): Record<string, number | string> {
  const path = fileURLToPath(new URL('../../../bench/results/journey.json', import.meta.url));
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number | string>) : {};
}

async function measure(runtime: Runtime): Promise<Record<string, number>> {
  progress(`${runtime}: starting the cluster`);
  let server: JourneyServer | undefined;
  let agent: AgentNode | undefined;
  let criNode: CriNode | undefined;
  let journey: Journey | undefined;
  try {
    server = await startJourneyServer({
      name: `bench-${runtime}`,
      shortTimers: false,
      ...(runtime === 'cri' ? { agent: false, extraArgs: ['--cluster-cidr', '10.244.0.0/16', '--service-cluster-ip-range', '10.96.0.0/12'] } : {}),
    });
    const nodes: string[] = [];
    if (runtime === 'process') {
      agent = await startAgentNode(server, { nodeName: 'journey-agent', shortTimers: false });
      await Promise.all([buildProcessImage('hello', server.dataDir), buildProcessImage('hello', agent.dataDir)]);
      nodes.push(hostname().toLowerCase(), agent.nodeName);
    } else {
      criNode = await startCriNode({
        serverDataDir: server.dataDir,
        apiServerPort: server.apiServerPort,
        nodeName: 'journey-cri',
        images: ['busybox', 'pause', 'hello'],
      });
      nodes.push(criNode.nodeName);
    }
    const kubectl = newKubectl('1.32', server.kubeconfig);
    for (const node of nodes) {
      await kubectl.ok('wait', '--for=create', `node/${node}`, '--timeout=90s');
      await kubectl.ok('wait', '--for=condition=Ready', `node/${node}`, '--timeout=90s');
    }
    await kubectl.ok('wait', '--for=create', 'serviceaccount/default', '--timeout=60s');
    const manifest = join(server.root, 'hello.yaml');
    // The manifest's own tolerations: on a loaded machine a node may miss a heartbeat, and short ones would evict. A
    // patient liveness probe: 30 apps starting at once may take longer to listen than 2 × 2 s, and restarts feed on
    // themselves (the stages measured do not depend on it).
    const names = await writeHelloCopy({ path: manifest, replicas: REPLICAS, livenessFailureThreshold: 30 });
    journey = new Journey({ kubectl, manifest, ...names, auditLog: server.auditLog, client: hostServiceClient(), print: (line) => progress(line) });
    await journey.watch();
    progress(`${runtime}: kubectl apply of ${REPLICAS} replicas`);
    const cpuBefore = cpuSnapshot();
    const tracker = await journey.apply({ nodes: [], timeoutMs: 300_000, settle: false });
    const cpuAfter = cpuSnapshot();
    const pods = journey.current().map((p) => p.metadata?.name ?? '');
    const perNode = nodes.map((node) => `${node}: ${journey!.current().filter((p) => p.spec?.nodeName === node).length}`);
    progress(`${runtime}: pods per node ${perNode.join(', ')}`);
    const steps = stepPercentiles(tracker, pods);
    const results: Record<string, number> = {
      [`apply_to_all_ready_ms_${runtime}`]: tracker.allReached(pods, 'ready') ?? Number.NaN,
      [`apply_to_all_in_endpoints_ms_${runtime}`]: tracker.allReached(pods, 'endpoints') ?? Number.NaN,
    };
    for (const [key, value] of Object.entries(steps)) results[`${key}_ms_${runtime}`] = round(value, 1);
    if (cpuBefore !== undefined && cpuAfter !== undefined) {
      for (const [group, seconds] of Object.entries(cpuSecondsBetween(cpuBefore, cpuAfter))) results[`cpu_s_${group.replaceAll('-', '_')}_${runtime}`] = round(seconds, 2);
    }
    progress(`${runtime}: deleting`);
    // Cleaning up is not measured: a slow garbage collection on a loaded machine must not lose the figures.
    await journey.deleteAll().catch((e: unknown) => progress(`${runtime}: cleaning up: ${e instanceof Error ? e.message : String(e)}`));
    return results;
  } finally {
    await journey?.stop().catch(() => undefined);
    await agent?.stop().catch((e: unknown) => progress(`stopping the agent: ${String(e)}`));
    await criNode?.stop().catch((e: unknown) => progress(`stopping the cri node: ${String(e)}`));
    await server?.stop().catch((e: unknown) => progress(`stopping the server: ${String(e)}`));
  }
}

const wanted = (process.env.BENCH_JOURNEY_RUNTIMES ?? 'process,cri').split(',').filter((r): r is Runtime => r === 'process' || r === 'cri');
console.log(`bench:journey on ${machineDescription()}: ${wanted.join(' and ')} runtime(s), ${REPLICAS} replicas`);
const measured: Record<string, number> = {};
const skipped: string[] = [];
for (const runtime of wanted) {
  const unavailable = runtime === 'cri' ? await containerdUnavailableReason() : undefined;
  if (unavailable !== undefined) {
    progress(`cri skipped: ${unavailable}`);
    skipped.push(`cri: ${unavailable}`);
    continue;
  }
  try {
    Object.assign(measured, await measure(runtime));
  } catch (e: unknown) {
    // One runtime failing must not lose the other's figures.
    progress(`${runtime} failed: ${e instanceof Error ? e.message : String(e)}`);
    skipped.push(`${runtime}: failed (${e instanceof Error ? e.message : String(e)})`);
    process.exitCode = 1;
  }
}
const results: Record<string, number | string> = {
  ...previousResults(),
  machine: machineDescription(),
  replicas: REPLICAS,
  ...measured,
  notes:
    'Step 1 of the journey: kubectl apply of examples/hello.yaml with 30 replicas, each pod timed on the client (ms) at the first ' +
    'kubectl watch event showing each stage. scheduled: created→scheduled; running: scheduled→running; ready: running→ready ' +
    '(the readiness probe runs every 1 s); endpoints: ready→listed as a ready endpoint. process: k8ts server and one k8ts agent ' +
    'on 127.0.0.2; cri: one containerd node in a network namespace. The liveness probe may fail 30 times before a restart.' +
    (skipped.length > 0 ? ` Not measured in the last run: ${skipped.join('; ')} (the figures of an earlier run stay).` : ''),
};
printResults(results);
console.log(`wrote ${writeResults('journey', results)}`);
