/**
 * npm run bench:controllers — the controller manager under a scale-up, as the
 * issue asks: a real API server (sqlite) and a real `k8ts controller-manager`
 * (replicaset and deployment controllers only), 100 Node objects with no
 * kubelet, and a stand-in for the scheduler and kubelets in a process of its
 * own (ready-helper.ts) that binds each new pod and marks it Running and Ready.
 *
 * A Deployment is scaled from 0 to 3,000 replicas:
 *   seconds_to_3000       until the ReplicaSet controller has created them all (the 3,000th ADDED on a watch)
 *   seconds_to_ready_3000 until the Deployment reports 3,000 available replicas
 *   creates_per_pod       pod creates the API server counted (apiserver_request_total, any code) ÷ 3,000: 1 means no duplicate
 *   failed_pod_creates    of those, the ones that did not succeed (e.g. a generated name that was taken)
 *   extra_pods            pods beyond 3,000 that exist at the end (0: nothing created twice)
 *   controller_to_direct_ratio  the ReplicaSet controller's creates/s ÷ the creates/s of a client sending 64 at
 *                         once to the same API server in the same run (the 27,000 pods below)
 * Then 27,000 more pods (bare, in another namespace; pod-filler.ts) make 30,000 in the
 * controller manager's informers:
 *   rss_mb_idle, rss_mb_3000_pods, rss_mb_30000_pods  the controller manager's resident memory (/proc/PID/status)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startK8ts } from '../../test/e2e/testing/k8ts-process.js';
import { DEPLOYMENTS, NODES, PODS, SERVICE_ACCOUNTS } from '../../src/client/rest/resources.js';
import { restConfigFromKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { newHttpClient } from '../../src/client/rest/http-client.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { H2Client } from '../api/h2-client.js';
import { machineDescription, printTable, round, writeResults } from '../common/stats.js';

const REPLICAS = 3000;
const TOTAL_PODS = 30_000;
const NODE_COUNT = 100;
const NAMESPACE = 'bench';
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const progress = (what: string): void => void process.stderr.write(`bench:controllers: ${what}\n`);
process.env.K8TS_LOG_LEVEL ??= 'warn';

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}`))));
  });
}

function startNode(script: string, args: string[], readyLine: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (c: Buffer) => {
      if (c.toString().includes(readyLine)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited early with ${code}`)));
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Resident memory once it stops growing (three readings a second apart within 1 %), or after 60 s. */
async function settledRssMb(pid: number): Promise<number> {
  const readings: number[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    readings.push(rssMb(pid));
    const last = readings.slice(-3);
    if ((last.length === 3 && Math.max(...last) - Math.min(...last) <= 0.01 * Math.max(...last)) || Date.now() > deadline) return last.at(-1)!;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Pod creates the API server has counted so far, by response code. */
async function podCreatesCounted(h2: H2Client): Promise<Map<string, number>> {
  const r = await h2.request('GET', '/metrics');
  const byCode = new Map<string, number>();
  for (const line of r.body.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    if (line.includes('verb="POST"') && line.includes('resource="pods"') && line.includes('subresource=""') && line.includes('dry_run=""')) {
      const code = /code="(\d+)"/.exec(line)?.[1] ?? '?';
      byCode.set(code, (byCode.get(code) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
  }
  return byCode;
}

const total = (counts: Map<string, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

/** The creates counted between two readings, by code. */
function createsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [code, n] of after) if (n - (before.get(code) ?? 0) > 0) out.set(code, n - (before.get(code) ?? 0));
  return out;
}

console.log(`bench:controllers on ${machineDescription()}: apiserver (sqlite) + controller-manager (replicaset, deployment) + a ready-helper process`);
const dir = mkdtempSync(join(tmpdir(), 'bench-controllers-'));
const server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
const children: ChildProcess[] = [];
let manager: ReturnType<typeof startK8ts> | undefined;
try {
  const line = await server.waitForLine(/^apiserver: serving on /, 60_000);
  const url = line.replace(/^apiserver: serving on /, '').trim();
  const admin = join(dir, 'admin.kubeconfig');
  const client = newHttpClient(restConfigFromKubeconfig(admin, { qps: 10_000, burst: 10_000, userAgent: 'bench-controllers' }));
  const h2 = new H2Client(url, join(dir, 'pki'), 1);

  progress(`${NODE_COUNT} nodes`);
  for (let i = 0; i < NODE_COUNT; i++) {
    await client.resource(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: `bench-node-${i}` } });
  }
  await client.resource({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  // The controller manager below runs only the replicaset and deployment controllers: make the default ServiceAccount pods need.
  await client.resource(SERVICE_ACCOUNTS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NAMESPACE } });

  manager = startK8ts([
    'controller-manager',
    '--kubeconfig',
    join(dir, 'pki', 'controller-manager.kubeconfig'),
    '--controllers',
    'replicaset,deployment',
    '--leader-elect=false',
    // As upstream's scheduler_perf does: the client's default 20 QPS would measure the rate limit, not the controllers.
    '--kube-api-qps',
    '5000',
    '--kube-api-burst',
    '5000',
    '--secure-port',
    '0',
  ]);
  await manager.waitForLine(/controller-manager: /, 60_000);
  const managerPid = manager.child.pid!;
  children.push(await startNode(here('./ready-helper.js'), [admin, NAMESPACE, String(NODE_COUNT)], 'ready-helper: watching'));

  const deployments = client.resource(DEPLOYMENTS);
  await deployments.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'scale', namespace: NAMESPACE },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'scale' } },
      template: { metadata: { labels: { app: 'scale' } }, spec: { containers: [{ name: 'c', image: 'bench' }] } },
    },
  } as KubeObject);
  // The controllers have seen the Deployment (its ReplicaSet exists with 0 replicas): start from a settled state.
  for (let d = Date.now() + 60_000; ; ) {
    const got = await deployments.get('scale', { namespace: NAMESPACE });
    if ((got as { status?: { observedGeneration?: number } }).status?.observedGeneration === 1) break;
    if (Date.now() > d) throw new Error('the deployment controller did not observe the Deployment within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const rssIdle = await settledRssMb(managerPid);
  const createsBefore = await podCreatesCounted(h2);

  progress(`scale 0 → ${REPLICAS}`);
  const pods = client.resource(PODS);
  let resourceVersion = (await pods.list({ namespace: NAMESPACE, limit: 1 })).metadata.resourceVersion!;
  const started = performance.now();
  await deployments.patch('scale', 'merge', { spec: { replicas: REPLICAS } }, { namespace: NAMESPACE });
  let added = 0;
  let secondsTo3000 = NaN;
  let reopened = 0;
  // Count creations on a watch; one the server ends (a timeout, a watcher it found too slow) is reopened where it stopped.
  while (Number.isNaN(secondsTo3000) && performance.now() - started < 300_000) {
    const watch = pods.watch({ namespace: NAMESPACE, resourceVersion });
    for await (const event of watch) {
      resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
      if (event.type === 'ADDED' && ++added === REPLICAS) {
        secondsTo3000 = (performance.now() - started) / 1000;
        break;
      }
    }
    watch.cancel();
    if (Number.isNaN(secondsTo3000)) reopened++;
  }
  if (reopened > 0) progress(`the pods watch was reopened ${reopened} time(s)`);
  let secondsToReady = NaN;
  for (const d = Date.now() + 300_000; Date.now() < d; ) {
    const got = (await deployments.get('scale', { namespace: NAMESPACE })) as { status?: { availableReplicas?: number } };
    if (got.status?.availableReplicas === REPLICAS) {
      secondsToReady = (performance.now() - started) / 1000;
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const createsByCode = createsBetween(createsBefore, await podCreatesCounted(h2));
  const creates = total(createsByCode);
  if (createsByCode.size !== 1 || !createsByCode.has('201')) progress(`pod creates by response code: ${JSON.stringify(Object.fromEntries(createsByCode))}`);
  const existing = (await pods.list({ namespace: NAMESPACE })).items.length;
  const rss3000 = await settledRssMb(managerPid);

  progress(`${TOTAL_PODS - REPLICAS} more pods`);
  const fillStarted = performance.now();
  await runNode(here('./pod-filler.js'), [url, join(dir, 'pki'), 'bench-fill', String(TOTAL_PODS - REPLICAS)]);
  // The baseline of the same run: the API server's create rate for a client sending 64 at once.
  const directPerS = (TOTAL_PODS - REPLICAS) / ((performance.now() - fillStarted) / 1000);
  const rss30000 = await settledRssMb(managerPid);
  h2.close();
  client.close();

  const results: Record<string, number | string> = {
    machine: machineDescription(),
    seconds_to_3000: round(secondsTo3000, 2),
    seconds_to_ready_3000: round(secondsToReady, 2),
    creates_per_pod: round(creates / REPLICAS, 4),
    failed_pod_creates: creates - (createsByCode.get('201') ?? 0),
    extra_pods: existing - REPLICAS,
    pods_per_s_created: round(REPLICAS / secondsTo3000, 1),
    direct_creates_per_s_64: round(directPerS, 1),
    controller_to_direct_ratio: round(REPLICAS / secondsTo3000 / directPerS, 3),
    rss_mb_idle: round(rssIdle, 1),
    rss_mb_3000_pods: round(rss3000, 1),
    rss_mb_30000_pods: round(rss30000, 1),
    kb_per_pod_in_informers: round(((rss30000 - rssIdle) * 1024) / TOTAL_PODS, 2),
  };
  printTable(
    ['measure', 'value'],
    Object.entries(results)
      .filter(([k]) => k !== 'machine')
      .map(([k, v]) => [k, v]),
  );
  console.log(`wrote ${writeResults('controllers', results)}`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await manager?.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
