/**
 * The load generator of bench:api, in a process of its own: HTTP/2 over 8
 * connections with the admin certificate, against a running API server.
 *
 *   node load.js URL PKI_DIR SECONDS [SERVER_PID]  → one JSON line of results
 *
 * With the server's pid, the creates' figures include the server's CPU time
 * per create (from /proc); the load generator's own CPU time per create is
 * always reported: on 2 cores the two compete.
 */
import { closedLoop } from '../common/closed-loop.js';
import { percentile } from '../common/stats.js';
import { H2Client } from './h2-client.js';
import { benchPod } from './pod-template.js';
import { cpuMicros, ownCpuMicros } from './process-cpu.js';

const [url, pkiDir, secondsText, serverPidText] = process.argv.slice(2) as [string, string, string, string?];
const serverPid = serverPidText === undefined ? undefined : Number(serverPidText);
const seconds = Number(secondsText);
const CONCURRENCY = 64;
const WARMUP_MS = 1000;
const client = new H2Client(url, pkiDir, 8);
const progress = (what: string): void => void process.stderr.write(`load: ${what}\n`);

async function createNamespace(name: string): Promise<void> {
  const r = await client.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${name}: ${r.status} ${r.body}`);
  // No controller manager runs here: make the default ServiceAccount that ServiceAccount admission requires of every pod.
  const sa = await client.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`create serviceaccount default in ${name}: ${sa.status} ${sa.body}`);
}

async function main(): Promise<Record<string, number>> {
  await createNamespace('bench-create');
  progress('creates');
  const created: string[] = [];
  const create = async (name: string): Promise<void> => {
    const r = await client.request('POST', '/api/v1/namespaces/bench-create/pods', JSON.stringify(benchPod(name, 'bench-create')));
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body}`);
  };
  // As the other create loads here (pipeline-load.ts, profile-creates.ts): a first second that is not
  // measured, so that the figures are the warm server's, not its JIT compiling and first-use set-up.
  await closedLoop({ concurrency: CONCURRENCY, durationMs: WARMUP_MS }, (w, n) => create(`warm-${w}-${n}`));
  const serverCpuBefore = cpuMicros(serverPid);
  const loadCpuBefore = ownCpuMicros();
  const creates = await closedLoop({ concurrency: CONCURRENCY, durationMs: seconds * 1000 }, async (w, n) => {
    const name = `p-${w}-${n}`;
    await create(name);
    created.push(name);
  });
  const serverCpu = cpuMicros(serverPid) - serverCpuBefore;
  const loadCpu = ownCpuMicros() - loadCpuBefore;
  progress(`gets (${created.length} pods)`);
  const gets = await closedLoop({ concurrency: CONCURRENCY, durationMs: seconds * 1000 }, async (w, n) => {
    const name = created[(w * 7919 + n) % created.length]!;
    const r = await client.request('GET', `/api/v1/namespaces/bench-create/pods/${name}`);
    if (r.status !== 200) throw new Error(`get: ${r.status}`);
  });

  progress('list');
  await createNamespace('bench-list');
  const LIST_SIZE = 10_000;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < LIST_SIZE) {
        const i = next++;
        const r = await client.request('POST', '/api/v1/namespaces/bench-list/pods', JSON.stringify(benchPod(`l-${i}`, 'bench-list')));
        if (r.status !== 201) throw new Error(`create for list: ${r.status} ${r.body}`);
      }
    }),
  );
  const listTimes: number[] = [];
  let listBytes = 0;
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const r = await client.request('GET', '/api/v1/namespaces/bench-list/pods');
    listTimes.push(performance.now() - t);
    listBytes = r.body.length;
    const items = (JSON.parse(r.body) as { items: unknown[] }).items.length;
    if (items !== LIST_SIZE) throw new Error(`list returned ${items} items`);
  }

  progress('watch');
  await createNamespace('bench-watch');
  const WATCHERS = 1000;
  const ROUNDS = 20;
  const seen = new Map<string, number>(); // "name" → how many watchers got it
  let waiting: { name: string; t0: number; latencies: number[]; done: () => void } | undefined;
  const closers: (() => void)[] = [];
  const list = await client.request('GET', '/api/v1/namespaces/bench-watch/pods');
  const rv = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  for (let i = 0; i < WATCHERS; i++) {
    if (i % 100 === 0) progress(`opening watcher ${i}`);
    closers.push(
      await client.watch(`/api/v1/namespaces/bench-watch/pods?watch=true&resourceVersion=${rv}`, (line) => {
        const now = performance.now();
        const event = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
        const name = event.object.metadata.name;
        seen.set(name, (seen.get(name) ?? 0) + 1);
        if (waiting !== undefined && waiting.name === name) {
          waiting.latencies.push(now - waiting.t0);
          if (waiting.latencies.length === WATCHERS) waiting.done();
        }
      }),
    );
  }
  progress(`watching with ${closers.length} watchers`);
  const deliveries: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const name = `w-${round}`;
    const latencies: number[] = [];
    const done = new Promise<void>((resolve) => (waiting = { name, t0: performance.now(), latencies, done: resolve }));
    const r = await client.request('POST', '/api/v1/namespaces/bench-watch/pods', JSON.stringify(benchPod(name, 'bench-watch')));
    if (r.status !== 201) throw new Error(`watch create: ${r.status}`);
    await done;
    deliveries.push(...latencies);
  }
  for (const close of closers) close();
  client.close();
  return {
    creates_per_s_64: creates.perSecond,
    create_p50_ms_64: creates.p50,
    create_p99_ms_64: creates.p99,
    // Over every create of the window (the few answered after it closed too).
    server_cpu_us_per_create_64: serverCpu / created.length,
    load_cpu_us_per_create_64: loadCpu / created.length,
    gets_per_s_64: gets.perSecond,
    get_p50_ms_64: gets.p50,
    get_p99_ms_64: gets.p99,
    list_10000_p50_ms: percentile(listTimes, 50),
    list_10000_bytes: listBytes,
    watch_p50_ms_1000: percentile(deliveries, 50),
    watch_p99_ms_1000: percentile(deliveries, 99),
  };
}

process.stdout.write(`${JSON.stringify(await main())}\n`);
process.exit(0);
