/**
 * The userspace forwarder's part of `npm run bench:proxy`: connections per
 * second and per-connection latency through a userspace Proxier (in this
 * process, as in the kube-proxy's) against the same backend reached directly,
 * in the same run, alternating rounds so that drift hits both alike. Backend
 * and load generators are processes of their own. The ratios are medians of
 * each pair of neighbouring rounds' ratio: on a shared machine the load of
 * other work changes from second to second, and a pair sees nearly the same.
 *
 * The load comes from one generator process per core, the concurrency split
 * among them: a single generator (one thread) saturates its core on the
 * direct path and caps that rate below what the machine can do, while the
 * forwarded rounds are bound by the machine as a whole; with one per core,
 * both sides are bound by the same thing (the cores all processes share).
 *
 * Besides the rates it reports CPU time per connection: the forwarder's (this
 * process during the forwarded rounds, less what it spends on the same
 * rounds' bookkeeping, measured in the direct rounds), the backend's and the
 * load generators'. On a shared machine these say more than the rates (other
 * work slows every process, the ratio of their CPU costs much less), hence
 * userspace_vs_direct_cpu_ratio: all three processes' CPU per direct
 * connection over the same per forwarded connection, the rate ratio a
 * machine given wholly to the bench would show.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { servicePortKey, type ProxyState, type ServicePort } from '../../src/proxy/interface.js';
import { newUserspaceProxier } from '../../src/proxy/userspace/userspace-proxier.js';
import { percentile } from '../common/stats.js';

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

/** What one load generator prints. */
interface GeneratorResult {
  readonly connections: number;
  readonly errors: number;
  readonly elapsedMs: number;
  /** CPU time the load generator spent in the measured window (µs). */
  readonly cpuUs: number;
  readonly latencies: readonly number[];
}

/** One round: the generators' results together, and the CPU the rest spent meanwhile. */
interface RoundResult {
  readonly connections: number;
  readonly errors: number;
  /** The sum of each generator's connections per second. */
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly generatorCpuUs: number;
  readonly backendCpuUs: number;
  /** This process (the forwarder, in forwarded rounds). */
  readonly benchCpuUs: number;
}

export interface UserspaceBenchOptions {
  /** Connections in flight, split among the generators. */
  readonly concurrency: number;
  readonly roundMs: number;
  readonly rounds: number;
  /** Load generator processes; default one per core. */
  readonly generators?: number;
}

/** The child's stdout, line by line, each line read by one call. */
function lineReader(child: ChildProcess): () => Promise<string> {
  let text = '';
  const ready: string[] = [];
  const waiting: { resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      const line = text.slice(0, nl);
      text = text.slice(nl + 1);
      const w = waiting.shift();
      if (w !== undefined) w.resolve(line);
      else ready.push(line);
    }
  });
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${child.spawnfile} exited ${code} before answering`));
  });
  return () => {
    const line = ready.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (child.exitCode !== null) return Promise.reject(new Error(`${child.spawnfile} exited ${child.exitCode} before answering`));
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
}

async function generate(host: string, port: number, concurrency: number, durationMs: number): Promise<GeneratorResult> {
  const child = spawn(process.execPath, [here('./load-generator.js'), host, String(port), String(concurrency), String(durationMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(await lineReader(child)()) as GeneratorResult;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchUserspace(options: UserspaceBenchOptions): Promise<Record<string, number>> {
  const generators = options.generators ?? availableParallelism();
  const backend = spawn(process.execPath, [here('./backend.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const backendLine = lineReader(backend);
  const backendCpuUs = async (): Promise<number> => {
    backend.stdin!.write('cpu\n');
    return Number(await backendLine());
  };
  const proxier = newUserspaceProxier({ nodePortAddresses: [] });
  try {
    const backendPort = Number(await backendLine());
    const clusterIP = '127.97.255.1';
    const name = { namespace: 'bench', name: 'backend', port: '', protocol: 'TCP' } as const;
    const service: ServicePort = {
      key: servicePortKey(name),
      name,
      type: 'ClusterIP',
      clusterIPs: [clusterIP],
      port: backendPort,
      externalIPs: [],
      loadBalancerIPs: [],
      internalTrafficPolicyLocal: false,
      externalTrafficPolicyLocal: false,
    };
    const state: ProxyState = {
      services: new Map([[service.key, service]]),
      endpoints: new Map([[service.key, [{ ip: '127.0.0.1', port: backendPort, ready: true, serving: true, terminating: false, isLocal: true }]]]),
      sliceVersions: new Map(),
    };
    const result = await proxier.sync(state);
    if (result.problems.length > 0) throw new Error(result.problems.join('; '));

    const round = async (host: string, durationMs: number): Promise<RoundResult> => {
      const backendBefore = await backendCpuUs();
      const benchBefore = process.cpuUsage();
      const share = Math.max(1, Math.round(options.concurrency / generators));
      const results = await Promise.all(Array.from({ length: generators }, () => generate(host, backendPort, share, durationMs)));
      const bench = process.cpuUsage(benchBefore);
      const backendUs = (await backendCpuUs()) - backendBefore;
      const latencies = results.flatMap((r) => r.latencies);
      return {
        connections: results.reduce((n, r) => n + r.connections, 0),
        errors: results.reduce((n, r) => n + r.errors, 0),
        rate: results.reduce((n, r) => n + r.connections / (r.elapsedMs / 1000), 0),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        generatorCpuUs: results.reduce((t, r) => t + r.cpuUs, 0),
        backendCpuUs: backendUs,
        benchCpuUs: bench.user + bench.system,
      };
    };

    // Warm both paths (JIT, socket caches), then alternate measured rounds.
    await round('127.0.0.1', 500);
    await round(clusterIP, 500);
    const direct: RoundResult[] = [];
    const proxied: RoundResult[] = [];
    for (let r = 0; r < options.rounds; r++) {
      direct.push(await round('127.0.0.1', options.roundMs));
      proxied.push(await round(clusterIP, options.roundMs));
    }
    const sum = (rs: readonly RoundResult[], f: (r: RoundResult) => number): number => rs.reduce((t, r) => t + f(r), 0);
    const perConnection = (rs: readonly RoundResult[], f: (r: RoundResult) => number): number => sum(rs, f) / sum(rs, (r) => r.connections);
    const directRate = sum(direct, (r) => r.rate) / direct.length;
    const proxiedRate = sum(proxied, (r) => r.rate) / proxied.length;
    const rateRatio = median(proxied.map((p, i) => p.rate / direct[i]!.rate));
    const directP50 = median(direct.map((r) => r.p50));
    const proxiedP50 = median(proxied.map((r) => r.p50));
    const directP99 = median(direct.map((r) => r.p99));
    const proxiedP99 = median(proxied.map((r) => r.p99));
    // This process's own share of a round (spawning generators, reading their output), as measured in the direct rounds.
    const benchOverheadUs = sum(direct, (r) => r.benchCpuUs) / direct.length;
    const forwarder = (sum(proxied, (r) => r.benchCpuUs) - benchOverheadUs * proxied.length) / sum(proxied, (r) => r.connections);
    const generatorDirect = perConnection(direct, (r) => r.generatorCpuUs);
    const generatorProxied = perConnection(proxied, (r) => r.generatorCpuUs);
    const backendDirect = perConnection(direct, (r) => r.backendCpuUs);
    const backendProxied = perConnection(proxied, (r) => r.backendCpuUs);
    const cpuRatio = median(
      proxied.map((p, i) => {
        const d = direct[i]!;
        return (d.generatorCpuUs + d.backendCpuUs) / d.connections / ((p.generatorCpuUs + p.backendCpuUs + p.benchCpuUs - benchOverheadUs) / p.connections);
      }),
    );
    return {
      userspace_concurrency: options.concurrency,
      userspace_load_generators: generators,
      direct_connections_per_s: directRate,
      userspace_connections_per_s: proxiedRate,
      userspace_vs_direct_ratio: rateRatio,
      userspace_vs_direct_cpu_ratio: cpuRatio,
      direct_latency_p50_ms: directP50,
      userspace_latency_p50_ms: proxiedP50,
      userspace_added_latency_p50_ms: proxiedP50 - directP50,
      direct_latency_p99_ms: directP99,
      userspace_latency_p99_ms: proxiedP99,
      userspace_added_latency_p99_ms: proxiedP99 - directP99,
      userspace_errors: sum(proxied, (r) => r.errors),
      userspace_forwarder_cpu_us_per_connection: forwarder,
      load_generator_cpu_us_per_connection_direct: generatorDirect,
      load_generator_cpu_us_per_connection_userspace: generatorProxied,
      backend_cpu_us_per_connection_direct: backendDirect,
      backend_cpu_us_per_connection_userspace: backendProxied,
    };
  } finally {
    await proxier.close();
    backend.kill('SIGTERM');
  }
}
