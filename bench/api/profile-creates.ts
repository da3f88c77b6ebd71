/**
 * Where a pod create's CPU goes in the API server: starts `k8ts apiserver`
 * (sqlite) under `node --cpu-prof`, drives it with the create load of
 * bench:api (64 concurrent requests over HTTP/2, 8 TLS connections, from this
 * process: the server runs in its own), and prints
 *   - the server's CPU time per create over the measured window (from /proc,
 *     so it counts every thread of the process), and
 *   - the self time of the profile's samples in that window by module and by
 *     function, and the inclusive time by function, as µs per create and as a
 *     share of the busy samples.
 * On a shared machine the CPU per create, compared before and after a change
 * at the same load, is far steadier than creates/s.
 *
 *   node dist/bench/api/profile-creates.js [SECONDS=10] [TOP=40] [KEEP_PROFILE_AS]
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { K8TS_BIN, CHECKOUT } from '../../test/e2e/testing/k8ts-process.js';
import { closedLoop } from '../common/closed-loop.js';
import { H2Client } from './h2-client.js';
import { benchPod } from './pod-template.js';
import { cpuMicros } from './process-cpu.js';

const seconds = Number(process.argv[2] ?? 10);
const top = Number(process.argv[3] ?? 40);
/** Where to keep a copy of the server's .cpuprofile (for DevTools or another summary). */
const keepAs = process.argv[4];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName;
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 6);
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return `node_modules:${url.slice(nm + 13).split('/')[0]}`;
  return url;
}

function summarise(profile: CpuProfile, fromUs: number, toUs: number, creates: number): void {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const inclusive = new Map<string, number>();
  const label = (n: ProfileNode): string => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').at(-1) ?? ''}:${n.callFrame.lineNumber + 1}`;
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let t = profile.startTime;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i]!;
    t += delta;
    if (t < fromUs || t > toUs) continue;
    const { functionName, url, lineNumber } = nodes.get(profile.samples[i]!)!.callFrame;
    if (functionName === '(idle)') continue;
    busy += delta;
    const fn = `${functionName || '(anonymous)'} ${url.split('/').at(-1) ?? ''}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
    const mod = moduleOf(url, functionName);
    byModule.set(mod, (byModule.get(mod) ?? 0) + delta);
    // Inclusive: every distinct frame on the sample's stack (a recursive frame once).
    const onStack = new Set<string>();
    for (let id: number | undefined = profile.samples[i]!; id !== undefined; id = parents.get(id)) onStack.add(label(nodes.get(id)!));
    for (const f of onStack) inclusive.set(f, (inclusive.get(f) ?? 0) + delta);
  }
  const print = (title: string, m: Map<string, number>): void => {
    console.log(`\n${title} (sampled µs per create, share of busy samples)`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${(v / creates).toFixed(1).padStart(8)} ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  print('self time by module', byModule);
  print('self time by function', byFunction);
  print('inclusive time by function', inclusive);
}

const dir = mkdtempSync(join(tmpdir(), 'profile-creates-'));
const profileDir = join(dir, 'profile');
const server = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, K8TS_BIN, 'apiserver', '--data-dir', join(dir, 'data'), '--secure-port', '0', '--bind-address', '127.0.0.1'], {
  cwd: CHECKOUT,
  stdio: ['ignore', 'pipe', 'pipe'],
});
try {
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const m = /apiserver: serving on (\S+)/.exec(text);
      if (m !== null) resolve(m[1]!);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.on('close', () => reject(new Error(`the server exited:\n${text}`)));
  });
  const client = new H2Client(url, join(dir, 'data', 'pki'), 8);
  await client.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-create' } }));
  // No controller manager runs here: the default ServiceAccount that ServiceAccount admission requires of every pod.
  await client.request('POST', '/api/v1/namespaces/bench-create/serviceaccounts', JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  const create = async (name: string): Promise<void> => {
    const r = await client.request('POST', '/api/v1/namespaces/bench-create/pods', JSON.stringify(benchPod(name, 'bench-create')));
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body}`);
  };
  await closedLoop({ concurrency: 64, durationMs: 1000 }, (w, n) => create(`warm-${w}-${n}`));
  const cpu0 = cpuMicros(server.pid) / 1000;
  const wallStart = performance.now();
  const creates = await closedLoop({ concurrency: 64, durationMs: seconds * 1000 }, (w, n) => create(`p-${w}-${n}`));
  const windowMs = performance.now() - wallStart;
  const cpuMs = cpuMicros(server.pid) / 1000 - cpu0;
  const shutdownStart = performance.now();
  client.close();
  const exited = new Promise((resolve) => server.on('close', resolve));
  server.kill('SIGTERM');
  await exited;
  const tailMs = performance.now() - shutdownStart;
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error('the server wrote no .cpuprofile');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
  if (keepAs !== undefined) copyFileSync(join(profileDir, file), keepAs);
  console.log(
    `${creates.count} creates in ${(windowMs / 1000).toFixed(1)} s: ${creates.perSecond.toFixed(0)}/s, p50 ${creates.p50.toFixed(1)} ms, p99 ${creates.p99.toFixed(1)} ms; ` +
      `server CPU ${((cpuMs * 1000) / creates.count).toFixed(0)} µs per create (${((100 * cpuMs) / windowMs).toFixed(0)}% of a core)`,
  );
  // The window ends where the shutdown began: the profile's end, less the shutdown's length.
  const toUs = profile.endTime - tailMs * 1000;
  summarise(profile, toUs - windowMs * 1000, toUs, creates.count);
} finally {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
