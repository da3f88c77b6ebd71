/**
 * The load generator of the pipeline benchmark (pipeline-bench.ts), in a
 * process of its own: pod creates from 64 clients over 8 HTTP/2 connections,
 * each with the client certificate of a user that is not system:masters, in
 * alternating windows against two API servers (the full pipeline and the bare
 * one), so that both see the same machine load.
 *
 *   node pipeline-load.js CONFIG_JSON  → one JSON line of results
 */
import { closedLoop } from '../common/closed-loop.js';
import { percentile } from '../common/stats.js';
import { H2Client } from './h2-client.js';
import { cpuMicros, ownCpuMicros } from './process-cpu.js';
import { benchPod } from './pod-template.js';

/** One server under load, and the credentials to reach it. */
export interface LoadTarget {
  readonly label: string;
  readonly url: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly namespace: string;
  /** The server's process id, to read the CPU time it spends per create from /proc (Linux); absent: not measured. */
  readonly pid?: number;
}

export interface LoadConfig {
  readonly targets: readonly LoadTarget[];
  /** Seconds of measured load per target, split into `rounds` alternating windows. */
  readonly seconds: number;
  readonly rounds: number;
  readonly concurrency: number;
  readonly connections: number;
}

/**
 * Per target: `<label>_creates_per_s`, `<label>_create_p50_ms`, `<label>_create_p99_ms`, `<label>_cpu_us_per_create`
 * (the server's; NaN without /proc) and `<label>_load_cpu_us_per_create` (this load generator's own).
 */
export type LoadResult = Record<string, number>;

/** Wait until the user may create pods (the RBAC informer has seen the bindings): a dry-run create answered 201. */
async function waitUntilAllowed(c: H2Client, target: LoadTarget, deadlineMs: number): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const r = await c.request('POST', `/api/v1/namespaces/${target.namespace}/pods?dryRun=All`, JSON.stringify(benchPod('probe', target.namespace)));
    if (r.status === 201) return;
    if (performance.now() > deadline) throw new Error(`${target.label}: the bench user may not create pods: ${r.status} ${r.body}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function runLoad(config: LoadConfig): Promise<LoadResult> {
  const clients = config.targets.map((t) => new H2Client(t.url, t, config.connections));
  const latencies = config.targets.map(() => [] as number[]);
  const counts = config.targets.map(() => 0);
  const seconds = config.targets.map(() => 0);
  const cpu = config.targets.map(() => 0);
  const loadCpu = config.targets.map(() => 0);
  for (const [i, t] of config.targets.entries()) await waitUntilAllowed(clients[i]!, t, 30_000);
  const windowMs = (config.seconds * 1000) / config.rounds;
  // Round -1 warms each server up (JIT, caches); it is not counted.
  for (let round = -1; round < config.rounds; round++) {
    // Odd rounds go through the targets in reverse, so that no target always runs right after the same other one.
    const order = [...config.targets.keys()];
    if (round % 2 !== 0) order.reverse();
    for (const i of order) {
      const t = config.targets[i]!;
      const c = clients[i]!;
      const mine: number[] = [];
      const cpuBefore = cpuMicros(t.pid);
      const loadCpuBefore = ownCpuMicros();
      const result = await closedLoop({ concurrency: config.concurrency, durationMs: round < 0 ? 1000 : windowMs }, async (w, n) => {
        const name = `p-${round + 1}-${w}-${n}`;
        const t0 = performance.now();
        const r = await c.request('POST', `/api/v1/namespaces/${t.namespace}/pods`, JSON.stringify(benchPod(name, t.namespace)));
        if (r.status !== 201) throw new Error(`${t.label} create: ${r.status} ${r.body}`);
        mine.push(performance.now() - t0);
      });
      if (round < 0) continue;
      cpu[i]! += cpuMicros(t.pid) - cpuBefore;
      loadCpu[i]! += ownCpuMicros() - loadCpuBefore;
      latencies[i]!.push(...mine);
      counts[i]! += result.count;
      seconds[i]! += result.seconds;
    }
  }
  for (const c of clients) c.close();
  const out: LoadResult = {};
  for (const [i, t] of config.targets.entries()) {
    out[`${t.label}_creates_per_s`] = counts[i]! / seconds[i]!;
    out[`${t.label}_create_p50_ms`] = percentile(latencies[i]!, 50);
    out[`${t.label}_create_p99_ms`] = percentile(latencies[i]!, 99);
    out[`${t.label}_cpu_us_per_create`] = cpu[i]! / counts[i]!;
    out[`${t.label}_load_cpu_us_per_create`] = loadCpu[i]! / counts[i]!;
  }
  return out;
}

const configText = process.argv[2];
if (configText !== undefined) {
  process.stdout.write(`${JSON.stringify(await runLoad(JSON.parse(configText) as LoadConfig))}\n`);
  process.exit(0);
}
