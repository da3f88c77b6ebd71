/**
 * npm run bench:scheduler — the scheduler at scale, in the spirit of
 * upstream's scheduler_perf: a real API server (sqlite) in its own process,
 * 5,000 Node objects with no kubelet (cpu 4, memory 32Gi, 110 pods, 10
 * zones), and a real `k8ts scheduler` process with its own kubeconfig
 * (--leader-elect=false, --kube-api-qps/burst 5000 as scheduler_perf sets
 * them). A load generator process (load-generator.ts) creates the pods of
 * three workloads, one after the other, each in a namespace of its own:
 *   basic         10,000 pods with small requests
 *   spread         5,000 pods with a zone topology spread (maxSkew 1, DoNotSchedule)
 *   antiaffinity   5,000 pods with required anti-affinity on the hostname, in groups of 10
 * Each workload's rate is pods bound per second from its first binding to its
 * last, seen on a watch. The baseline of the same run: the API server's pod
 * create rate for the same load generator (64 in flight), measured before the
 * scheduler starts with pods no scheduler picks up (then deleted).
 *   scheduler_rss_mb   the scheduler's peak resident memory (/proc/PID/status)
 *
 * BENCH_SCHEDULER_CPU_PROF=DIR runs the scheduler under `node --cpu-prof`
 * and leaves the profile in DIR (open it in Chrome DevTools);
 * BENCH_SCHEDULER_WORKLOADS=basic,spread runs only those (for profiling).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newHttpClient } from '../../src/client/rest/http-client.js';
import { restConfigFromKubeconfig } from '../../src/client/rest/kubeconfig.js';
import { K8TS_BIN, startK8ts, type K8tsProcess } from '../../test/e2e/testing/k8ts-process.js';
import { machineDescription, printTable, round, writeResults } from '../common/stats.js';
import { watchBindings } from './bind-watch.js';
import type { Workload } from './workloads.js';

const NODES = 5000;
const BASELINE_PODS = 5000;
const ALL_WORKLOADS: ReadonlyArray<{ workload: Workload; pods: number; deadlineMs: number }> = [
  { workload: 'basic', pods: 10_000, deadlineMs: 200_000 },
  { workload: 'spread', pods: 5000, deadlineMs: 120_000 },
  { workload: 'antiaffinity', pods: 5000, deadlineMs: 120_000 },
];
const only = (process.env.BENCH_SCHEDULER_WORKLOADS ?? '').split(',').filter((w) => w !== '');
const WORKLOADS = only.length === 0 ? ALL_WORKLOADS : ALL_WORKLOADS.filter((w) => only.includes(w.workload));
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
const progress = (what: string): void => void process.stderr.write(`bench:scheduler: ${what}\n`);
process.env.K8TS_LOG_LEVEL ??= 'warn';

/** Run the load generator to completion; resolves with the seconds it reported. */
function loadGenerator(args: string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [here('./load-generator.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      const seconds = /in ([\d.]+) s/.exec(out)?.[1];
      if (code === 0 && seconds !== undefined) resolvePromise(Number(seconds));
      else reject(new Error(`load-generator ${args[0]} exited with ${code}: ${out}`));
    });
  });
}

function rssMb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** `k8ts scheduler`, under --cpu-prof when asked. */
function startScheduler(args: string[]): K8tsProcess {
  const profileDir = process.env.BENCH_SCHEDULER_CPU_PROF;
  if (profileDir === undefined || profileDir === '') return startK8ts(args);
  mkdirSync(resolve(profileDir), { recursive: true });
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir), K8TS_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text += c.toString()));
  const exited = new Promise<number | string>((r) => child.on('close', (code, signal) => r(code ?? signal ?? 'unknown')));
  return {
    child,
    output: () => text,
    waitForLine: async (pattern, timeoutMs = 30_000) => {
      for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        const line = text.split('\n').find((l) => pattern.test(l));
        if (line !== undefined) return line;
        if (child.exitCode !== null) break;
      }
      throw new Error(`the scheduler did not print ${pattern}:\n${text}`);
    },
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

console.log(`bench:scheduler on ${machineDescription()}: apiserver (sqlite) + scheduler + load generator, ${NODES} nodes without kubelets`);
const dir = mkdtempSync(join(tmpdir(), 'bench-scheduler-'));
const server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
let scheduler: K8tsProcess | undefined;
let sampler: NodeJS.Timeout | undefined;
try {
  const line = await server.waitForLine(/^apiserver: serving on /, 60_000);
  const url = line.replace(/^apiserver: serving on /, '').trim();
  const pki = join(dir, 'pki');
  const admin = newHttpClient(restConfigFromKubeconfig(join(dir, 'admin.kubeconfig'), { qps: 100_000, burst: 100_000, userAgent: 'bench-scheduler' }));

  progress(`${NODES} nodes`);
  const nodeSeconds = await loadGenerator(['nodes', url, pki, String(NODES)]);
  progress(`${NODES} nodes in ${nodeSeconds.toFixed(1)} s`);

  progress(`baseline: ${BASELINE_PODS} pod creates that no scheduler picks up`);
  const baselineSeconds = await loadGenerator(['pods', url, pki, 'baseline', 'baseline', String(BASELINE_PODS)]);
  const createsPerS = BASELINE_PODS / baselineSeconds;
  progress(`baseline: ${createsPerS.toFixed(0)} pod creates/s`);
  await loadGenerator(['delete', url, pki, 'baseline', 'baseline', String(BASELINE_PODS)]);

  scheduler = startScheduler([
    'scheduler',
    '--kubeconfig',
    join(pki, 'scheduler.kubeconfig'),
    '--leader-elect=false',
    '--kube-api-qps',
    '5000',
    '--kube-api-burst',
    '5000',
    '--secure-port',
    '0',
  ]);
  await scheduler.waitForLine(/^scheduler: scheduling/, 60_000);
  const schedulerPid = scheduler.child.pid!;
  let peakRss = 0;
  sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(schedulerPid) || 0)), 250);
  const rssIdle = rssMb(schedulerPid);

  const rows: Array<[string, number, number, number, number, number]> = [];
  const results: Record<string, number | string> = { machine: machineDescription(), nodes: NODES };
  for (const { workload, pods, deadlineMs } of WORKLOADS) {
    progress(`${workload}: ${pods} pods`);
    const watch = await watchBindings(admin, workload);
    const workloadStarted = performance.now();
    const createSeconds = await loadGenerator(['pods', url, pki, workload, workload, String(pods)]);
    // The deadline counts from the first create, so that the whole bench stays within its 10 minutes.
    await watch.until(pods, Math.max(0, deadlineMs - (performance.now() - workloadStarted)));
    watch.stop();
    const seconds = (watch.lastBindAt - watch.firstBindAt) / 1000;
    progress(`${workload}: ${watch.bound} bound in ${seconds.toFixed(1)} s (created in ${createSeconds.toFixed(1)} s)`);
    const perS = watch.bound > 1 ? (watch.bound - 1) / seconds : 0;
    if (watch.bound < pods) progress(`${workload}: only ${watch.bound} of ${pods} pods bound within ${deadlineMs / 1000} s of the first create`);
    rows.push([workload, pods, watch.bound, round(seconds, 2), round(perS, 1), round(pods / createSeconds, 1)]);
    results[`${workload}_pods_per_s`] = round(perS, 1);
    results[`${workload}_pods_bound`] = watch.bound;
    results[`${workload}_seconds`] = round(seconds, 2);
    results[`${workload}_vs_create_ratio`] = round(perS / createsPerS, 3);
  }
  clearInterval(sampler);
  const rssEnd = rssMb(schedulerPid);
  Object.assign(results, {
    creates_per_s_baseline: round(createsPerS, 1),
    node_creates_per_s: round(NODES / nodeSeconds, 1),
    scheduler_rss_mb: round(Math.max(peakRss, rssEnd), 1),
    scheduler_rss_mb_idle: round(rssIdle, 1),
    scheduler_rss_mb_end: round(rssEnd, 1),
  });
  admin.close();

  printTable(['workload', 'pods', 'bound', 'first→last bind s', 'pods bound/s', 'pods created/s (same time)'], rows);
  console.log('');
  printTable(
    ['measure', 'value'],
    Object.entries(results)
      .filter(([k]) => k !== 'machine' && !/^(basic|spread|antiaffinity)_(pods_bound|seconds)$/.test(k))
      .map(([k, v]) => [k, v]),
  );
  if (only.length === 0) console.log(`wrote ${writeResults('scheduler', results)}`);
  else console.log('a partial run (BENCH_SCHEDULER_WORKLOADS): bench/results/scheduler.json left as it was');
} finally {
  if (sampler !== undefined) clearInterval(sampler);
  await scheduler?.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
