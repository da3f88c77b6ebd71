/**
 * The userspace forwarder's part of `npm run bench:proxy`: connections per
 * second and per-connection latency through a userspace Proxier (in this
 * process, as in the kube-proxy's) against the same backend reached directly,
 * in the same run, alternating rounds so that drift hits both alike. Backend
 * and load generator are processes of their own.
 *
 * Besides the rates it reports CPU time per connection: the forwarder's (this
 * process during the forwarded rounds) and the load generator's, which on a
 * shared machine say more than the rates (other work slows every process, the
 * ratio of their CPU costs much less).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { servicePortKey, type ProxyState, type ServicePort } from '../../src/proxy/interface.js';
import { newUserspaceProxier } from '../../src/proxy/userspace/userspace-proxier.js';

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

interface LoadResult {
  readonly connections: number;
  readonly errors: number;
  readonly elapsedMs: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU time the load generator spent in the measured window (µs). */
  readonly cpuUs: number;
}

export interface UserspaceBenchOptions {
  readonly concurrency: number;
  readonly roundMs: number;
  readonly rounds: number;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) resolve(text.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`${child.spawnfile} exited ${code} before answering`)));
  });
}

async function load(host: string, port: number, options: UserspaceBenchOptions, durationMs: number): Promise<LoadResult> {
  const child = spawn(process.execPath, [here('./load-generator.js'), host, String(port), String(options.concurrency), String(durationMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(await firstLine(child)) as LoadResult;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchUserspace(options: UserspaceBenchOptions): Promise<Record<string, number>> {
  const backend = spawn(process.execPath, [here('./backend.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const proxier = newUserspaceProxier({ nodePortAddresses: [] });
  try {
    const backendPort = Number(await firstLine(backend));
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

    // Warm both paths (JIT, socket caches), then alternate measured rounds.
    await load('127.0.0.1', backendPort, options, 500);
    await load(clusterIP, backendPort, options, 500);
    const direct: LoadResult[] = [];
    const proxied: LoadResult[] = [];
    let forwarderCpuUs = 0;
    for (let round = 0; round < options.rounds; round++) {
      direct.push(await load('127.0.0.1', backendPort, options, options.roundMs));
      const cpuBefore = process.cpuUsage();
      proxied.push(await load(clusterIP, backendPort, options, options.roundMs));
      const cpu = process.cpuUsage(cpuBefore);
      forwarderCpuUs += cpu.user + cpu.system;
    }
    const connections = (rs: readonly LoadResult[]): number => rs.reduce((n, r) => n + r.connections, 0);
    const clientCpuPerConnection = (rs: readonly LoadResult[]): number => rs.reduce((t, r) => t + r.cpuUs, 0) / connections(rs);
    const rate = (rs: readonly LoadResult[]): number => rs.reduce((n, r) => n + r.connections, 0) / (rs.reduce((t, r) => t + r.elapsedMs, 0) / 1000);
    const directRate = rate(direct);
    const proxiedRate = rate(proxied);
    const directP50 = median(direct.map((r) => r.p50));
    const proxiedP50 = median(proxied.map((r) => r.p50));
    const directP99 = median(direct.map((r) => r.p99));
    const proxiedP99 = median(proxied.map((r) => r.p99));
    return {
      userspace_concurrency: options.concurrency,
      direct_connections_per_s: directRate,
      userspace_connections_per_s: proxiedRate,
      userspace_vs_direct_ratio: proxiedRate / directRate,
      direct_latency_p50_ms: directP50,
      userspace_latency_p50_ms: proxiedP50,
      userspace_added_latency_p50_ms: proxiedP50 - directP50,
      direct_latency_p99_ms: directP99,
      userspace_latency_p99_ms: proxiedP99,
      userspace_added_latency_p99_ms: proxiedP99 - directP99,
      userspace_errors: proxied.reduce((n, r) => n + r.errors, 0),
      // Includes the spawning of each round's load generator (a few ms of a 3 s round).
      userspace_forwarder_cpu_us_per_connection: forwarderCpuUs / connections(proxied),
      load_generator_cpu_us_per_connection_direct: clientCpuPerConnection(direct),
      load_generator_cpu_us_per_connection_userspace: clientCpuPerConnection(proxied),
    };
  } finally {
    await proxier.close();
    backend.kill('SIGTERM');
  }
}
