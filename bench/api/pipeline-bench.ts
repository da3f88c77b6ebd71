/**
 * What the request pipeline costs (issue 6): pod creates/s at 64 clients
 * through the full pipeline beside the bare server, in the same run.
 *
 * - full: client-certificate authentication of `bench-user` (group
 *   bench-team; not system:masters, so RBAC really evaluates), Node,RBAC (as
 *   `k8ts server` runs) with the
 *   bootstrap policy plus 200 extra roles and 200 extra bindings (some naming
 *   the bench user or its group, the pod grant last), every default admission
 *   plugin and NodeRestriction on;
 * - bare: the same server, same user and objects, with --authorization-mode
 *   AlwaysAllow and every default admission plugin disabled.
 *
 * Both servers run at once (two processes); one load process (pipeline-load.ts)
 * alternates windows between them so that both see the same machine load.
 * `pipeline_ratio` is full ÷ bare creates/s.
 *
 * Alone: node dist/bench/api/pipeline-bench.js [SECONDS]; with
 * PIPELINE_PROFILE_DIR set, each server writes its .cpuprofile (full, bare) there.
 * With PIPELINE_BASELINE_CHECKOUT set to another built checkout (an earlier
 * commit), a third server runs that checkout's full pipeline in the same
 * windows: the printed `full ÷ baseline` figures compare two versions on one
 * machine load (they are not written to the results).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueClientCertificate, loadCertificateAuthority } from '../../src/cmd/pki/certificates.js';
import { selectAdmissionPlugins } from '../../src/apiserver/admission/plugins/registry.js';
import { CHECKOUT, K8TS_BIN, startK8ts, type K8tsProcess } from '../../test/e2e/testing/k8ts-process.js';
import { printTable, round } from '../common/stats.js';
import { H2Client } from './h2-client.js';
import type { LoadConfig, LoadTarget } from './pipeline-load.js';

export const BENCH_USER = 'bench-user';
export const BENCH_GROUP = 'bench-team';
const NAMESPACE = 'bench-pipeline';
/** Extra roles and bindings: half cluster-wide, half in the bench namespace. */
const EXTRA = 200;
/** How many of the extra bindings name the bench user's group (rules it walks before the pod grant). */
const GROUP_BINDINGS = 20;

export interface PipelineFigures {
  pipeline_full_creates_per_s_64: number;
  pipeline_full_create_p50_ms_64: number;
  pipeline_full_create_p99_ms_64: number;
  pipeline_bare_creates_per_s_64: number;
  pipeline_bare_create_p50_ms_64: number;
  pipeline_bare_create_p99_ms_64: number;
  pipeline_ratio: number;
  /** The servers' own CPU time per create (Linux /proc; NaN elsewhere), and bare ÷ full of it: the ratio the machine's other load disturbs least. */
  pipeline_full_cpu_us_per_create: number;
  pipeline_bare_cpu_us_per_create: number;
  pipeline_cpu_ratio: number;
}

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

interface Server {
  readonly proc: K8tsProcess;
  readonly url: string;
  readonly dir: string;
}

async function startServer(label: string, args: readonly string[], nodeFlags: readonly string[], checkout?: string): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), `bench-pipeline-${label}-`));
  const fullArgs = ['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...args];
  const proc =
    checkout !== undefined ? startWithNodeFlags(nodeFlags, fullArgs, join(checkout, 'bin', 'k8ts.js'), checkout) : nodeFlags.length === 0 ? startK8ts(fullArgs) : startWithNodeFlags(nodeFlags, fullArgs);
  try {
    const line = await proc.waitForLine(/^apiserver: serving on /, 120_000);
    return { proc, url: line.replace(/^apiserver: serving on /, '').trim(), dir };
  } catch (e: unknown) {
    await proc.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** `node FLAGS bin/k8ts.js ARGS` (--cpu-prof is not allowed in NODE_OPTIONS), with startK8ts's waitForLine and stop. */
function startWithNodeFlags(nodeFlags: readonly string[], args: readonly string[], bin = K8TS_BIN, cwd = CHECKOUT): K8tsProcess {
  const child = spawn(process.execPath, [...nodeFlags, bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const onData = (chunk: Buffer): void => void (text += chunk.toString('utf8'));
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    output: () => text,
    async waitForLine(pattern, timeoutMs = 30_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const line = text.split('\n').find((l) => pattern.test(l));
        if (line !== undefined) return line;
        if (child.exitCode !== null || performance.now() > deadline) throw new Error(`k8ts did not print ${pattern}:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

async function stopServer(server: Server): Promise<void> {
  await server.proc.stop('SIGTERM', 60_000);
  rmSync(server.dir, { recursive: true, force: true });
}

/** A few read rules in assorted groups: what an ordinary role grants. */
function readRules(i: number): Record<string, unknown>[] {
  return [
    { apiGroups: [''], resources: ['configmaps', `widgets-${i}`], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: ['get', 'list'] },
    { apiGroups: [`example${i}.io`], resources: ['*'], verbs: ['*'] },
  ];
}

/** The namespace, its default service account, 200 roles and 200 bindings; the bench user's pod grant is the last binding. */
async function createPolicy(admin: H2Client): Promise<void> {
  const post = async (path: string, object: Record<string, unknown>): Promise<void> => {
    const r = await admin.request('POST', path, JSON.stringify(object));
    if (r.status !== 201 && r.status !== 409) throw new Error(`POST ${path}: ${r.status} ${r.body}`);
  };
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  await post(`/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NAMESPACE } });
  const half = EXTRA / 2;
  const subjects = (i: number): Record<string, unknown>[] => [
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `user-${i}` },
    { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: i < GROUP_BINDINGS / 2 ? BENCH_GROUP : `team-${i % 10}` },
    { kind: 'ServiceAccount', name: `sa-${i}`, namespace: NAMESPACE },
  ];
  const writes: Promise<void>[] = [];
  for (let i = 0; i < half; i++) {
    writes.push(
      (async () => {
        await post(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `bench-cr-${i}` }, rules: readRules(i) });
        await post(`${rbac}/clusterrolebindings`, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `bench-crb-${i}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `bench-cr-${i}` },
          subjects: subjects(i),
        });
      })(),
    );
  }
  for (let i = 0; i < half; i++) {
    const last = i === half - 1;
    const rules = last ? [{ apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'watch', 'delete'] }] : readRules(1000 + i);
    writes.push(
      (async () => {
        await post(`${rbac}/namespaces/${NAMESPACE}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: `bench-role-${i}`, namespace: NAMESPACE }, rules });
        await post(`${rbac}/namespaces/${NAMESPACE}/rolebindings`, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          // zz: the pod grant sorts last among the namespace's bindings.
          metadata: { name: last ? 'zz-bench-pod-creator' : `bench-rb-${i}`, namespace: NAMESPACE },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `bench-role-${i}` },
          subjects: last ? [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: BENCH_USER }] : subjects(half + i),
        });
      })(),
    );
  }
  await Promise.all(writes);
}

/** A client certificate for bench-user (group bench-team), signed by the server's CA; the files of a LoadTarget. */
async function benchUserCertificate(pkiDir: string, outDir: string): Promise<{ caFile: string; certFile: string; keyFile: string }> {
  const ca = await loadCertificateAuthority(readFileSync(join(pkiDir, 'ca.crt'), 'utf8'), readFileSync(join(pkiDir, 'ca.key'), 'utf8'));
  const issued = await issueClientCertificate(ca, { commonName: BENCH_USER, organizations: [BENCH_GROUP] });
  const certFile = join(outDir, 'bench-user.crt');
  const keyFile = join(outDir, 'bench-user.key');
  writeFileSync(certFile, issued.certPem);
  writeFileSync(keyFile, issued.keyPem, { mode: 0o600 });
  return { caFile: join(pkiDir, 'ca.crt'), certFile, keyFile };
}

async function prepare(server: Server, label: string): Promise<LoadTarget> {
  const pki = join(server.dir, 'pki');
  const admin = new H2Client(server.url, pki, 1);
  try {
    await createPolicy(admin);
  } finally {
    admin.close();
  }
  const pid = server.proc.child.pid;
  return { label, url: server.url, namespace: NAMESPACE, ...(pid !== undefined ? { pid } : {}), ...(await benchUserCertificate(pki, server.dir)) };
}

function runLoadProcess(config: LoadConfig): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [here('./pipeline-load.js'), JSON.stringify(config)], { maxBuffer: 1 << 24, timeout: 600_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`pipeline-load failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>);
    });
  });
}

export interface PipelineBenchOptions {
  /** Seconds of measured load per server. */
  readonly seconds: number;
  /** Alternating windows per server (default 6). */
  readonly rounds?: number;
  /** Write each server's CPU profile (full.cpuprofile, bare.cpuprofile) into this directory. */
  readonly profileDir?: string;
  /** Another built checkout whose full pipeline runs beside, in the same windows (see the file's comment). */
  readonly baselineCheckout?: string;
}

/** The full pipeline of this checkout against a baseline checkout's, same run. */
export interface BaselineFigures {
  readonly baseline_full_creates_per_s_64: number;
  readonly baseline_full_cpu_us_per_create: number;
  readonly full_over_baseline_creates: number;
  readonly baseline_over_full_cpu: number;
}

let lastBaseline: BaselineFigures | undefined;
/** The baseline comparison of the last measurePipeline with a baselineCheckout. */
export const baselineFigures = (): BaselineFigures | undefined => lastBaseline;

export async function measurePipeline(options: PipelineBenchOptions): Promise<PipelineFigures> {
  const implemented = selectAdmissionPlugins({ enable: ['NodeRestriction'] });
  const profile = (label: string): string[] => (options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`, `--cpu-prof-name=${label}.cpuprofile`]);
  const full = await startServer('full', ['--authorization-mode', 'Node,RBAC', '--enable-admission-plugins', 'NodeRestriction'], profile('full'));
  let bare: Server | undefined;
  let baseline: Server | undefined;
  try {
    bare = await startServer('bare', ['--authorization-mode', 'AlwaysAllow', '--disable-admission-plugins', implemented.join(',')], profile('bare'));
    if (options.baselineCheckout !== undefined) {
      baseline = await startServer('baseline', ['--authorization-mode', 'Node,RBAC', '--enable-admission-plugins', 'NodeRestriction'], [], options.baselineCheckout);
    }
    const targets = [await prepare(full, 'full'), await prepare(bare, 'bare'), ...(baseline !== undefined ? [await prepare(baseline, 'baseline')] : [])];
    const r = await runLoadProcess({ targets, seconds: options.seconds, rounds: options.rounds ?? 6, concurrency: 64, connections: 8 });
    lastBaseline =
      baseline === undefined
        ? undefined
        : {
            baseline_full_creates_per_s_64: r.baseline_creates_per_s!,
            baseline_full_cpu_us_per_create: r.baseline_cpu_us_per_create!,
            full_over_baseline_creates: r.full_creates_per_s! / r.baseline_creates_per_s!,
            baseline_over_full_cpu: r.baseline_cpu_us_per_create! / r.full_cpu_us_per_create!,
          };
    return {
      pipeline_full_creates_per_s_64: r.full_creates_per_s!,
      pipeline_full_create_p50_ms_64: r.full_create_p50_ms!,
      pipeline_full_create_p99_ms_64: r.full_create_p99_ms!,
      pipeline_bare_creates_per_s_64: r.bare_creates_per_s!,
      pipeline_bare_create_p50_ms_64: r.bare_create_p50_ms!,
      pipeline_bare_create_p99_ms_64: r.bare_create_p99_ms!,
      pipeline_ratio: r.full_creates_per_s! / r.bare_creates_per_s!,
      pipeline_full_cpu_us_per_create: r.full_cpu_us_per_create!,
      pipeline_bare_cpu_us_per_create: r.bare_cpu_us_per_create!,
      pipeline_cpu_ratio: r.bare_cpu_us_per_create! / r.full_cpu_us_per_create!,
    };
  } finally {
    await stopServer(full);
    if (bare !== undefined) await stopServer(bare);
    if (baseline !== undefined) await stopServer(baseline);
  }
}

export function printPipelineTable(f: PipelineFigures): void {
  console.log('request pipeline: bench-user by client certificate, RBAC (bootstrap + 200 roles, 200 bindings), default admission plugins');
  printTable(
    ['measure', 'full pipeline', 'bare', 'ratio'],
    [
      ['pod creates/s (64 concurrent)', f.pipeline_full_creates_per_s_64, f.pipeline_bare_creates_per_s_64, f.pipeline_ratio],
      ['create p50 ms', f.pipeline_full_create_p50_ms_64, f.pipeline_bare_create_p50_ms_64, f.pipeline_full_create_p50_ms_64 / f.pipeline_bare_create_p50_ms_64],
      ['create p99 ms', f.pipeline_full_create_p99_ms_64, f.pipeline_bare_create_p99_ms_64, f.pipeline_full_create_p99_ms_64 / f.pipeline_bare_create_p99_ms_64],
      ['server CPU µs per create', f.pipeline_full_cpu_us_per_create, f.pipeline_bare_cpu_us_per_create, f.pipeline_cpu_ratio],
    ],
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const seconds = Number(process.argv[2] ?? process.env.BENCH_SECONDS ?? 5);
  const profileDir = process.env.PIPELINE_PROFILE_DIR;
  const baselineCheckout = process.env.PIPELINE_BASELINE_CHECKOUT;
  const figures = await measurePipeline({
    seconds,
    ...(profileDir !== undefined && profileDir !== '' ? { profileDir } : {}),
    ...(baselineCheckout !== undefined && baselineCheckout !== '' ? { baselineCheckout } : {}),
  });
  printPipelineTable(figures);
  const base = baselineFigures();
  if (base !== undefined) console.log(`full pipeline against the baseline checkout, same run: ${JSON.stringify(Object.fromEntries(Object.entries(base).map(([k, v]) => [k, round(v, 3)])))}`);
  console.log(JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, round(v, 3)]))));
}
