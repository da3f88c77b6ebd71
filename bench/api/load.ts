/**
 * The load generator of bench:api, in processes of its own, against a running
 * API server: the creates and gets come from h2load (h2load.ts: 8 TLS
 * connections, 64 requests in flight, a bearer token); the list and the
 * watchers from this process (HTTP/2 over 8 connections with the admin
 * certificate).
 *
 *   node load.js URL PKI_DIR SECONDS SERVER_PID TOKEN  → one JSON line of results
 *
 * The creates' figures include the server's CPU time per create (from /proc,
 * the server's process and its --workers children) and h2load's: on 2 cores
 * they compete.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from '../common/stats.js';
import { H2Client } from './h2-client.js';
import { runH2Load } from './h2load.js';
import { benchPod } from './pod-template.js';
import { treeCpuMicros } from './process-cpu.js';
import { WATCH_ROUNDS, WATCH_WARM_ROUNDS } from './watch-rounds.js';

const [url, pkiDir, secondsText, serverPidText, token] = process.argv.slice(2) as [string, string, string, string, string];
const serverPid = Number(serverPidText);
const seconds = Number(secondsText);
const CONCURRENCY = 64;
const client = new H2Client(url, pkiDir, 8);
const progress = (what: string): void => void process.stderr.write(`load: ${what}\n`);

async function createNamespace(name: string): Promise<void> {
  const r = await client.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  if (r.status !== 201 && r.status !== 409) throw new Error(`create namespace ${name}: ${r.status} ${r.body}`);
  // No controller manager runs here: make the default ServiceAccount that ServiceAccount admission requires of every pod.
  const sa = await client.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }));
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`create serviceaccount default in ${name}: ${sa.status} ${sa.body}`);
}

const figures: Record<string, number> = {};

/**
 * The name of a watch event's object. The 1,000 watchers' events are read on
 * this process's one thread, so what it spends on each delays the next
 * watcher's reading: the name is taken from the text when the server wrote it
 * first in the metadata (as it does), and only otherwise by parsing the line.
 */
function eventObjectName(line: string): string {
  const at = line.indexOf(METADATA_NAME);
  if (at >= 0) return line.slice(at + METADATA_NAME.length, line.indexOf('"', at + METADATA_NAME.length));
  return (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name;
}
const METADATA_NAME = '"metadata":{"name":"';

async function main(): Promise<Record<string, number>> {
  await createNamespace('bench-create');
  progress('creates (h2load)');
  const work = mkdtempSync(join(tmpdir(), 'bench-load-'));
  try {
    // The same bytes for every create: the server names each pod (generateName).
    const pod = benchPod('', 'bench-create') as { metadata: Record<string, unknown> };
    delete pod.metadata.name;
    pod.metadata.generateName = 'p-';
    const createLoad = { url, paths: ['/api/v1/namespaces/bench-create/pods'], token, body: JSON.stringify(pod), workDir: work, expectStatus: 201 };
    // As the other create loads here (pipeline-load.ts, profile-creates.ts): a first second that is not
    // measured, so that the figures are the warm server's, not its JIT compiling and first-use set-up.
    await runH2Load({ ...createLoad, seconds: 1 });
    const serverCpuBefore = treeCpuMicros(serverPid);
    const creates = await runH2Load({ ...createLoad, seconds });
    const serverCpu = treeCpuMicros(serverPid) - serverCpuBefore;
    progress('gets (h2load)');
    const names = JSON.parse((await client.request('GET', '/api/v1/namespaces/bench-create/pods?limit=1000')).body) as { items: { metadata: { name: string } }[] };
    const paths = names.items.map((p) => `/api/v1/namespaces/bench-create/pods/${p.metadata.name}`);
    const gets = await runH2Load({ url, paths, token, seconds, workDir: work, expectStatus: 200 });
    Object.assign(figures, {
      creates_per_s_64: creates.perSecond,
      create_p50_ms_64: creates.p50,
      create_p99_ms_64: creates.p99,
      server_cpu_us_per_create_64: serverCpu / creates.count,
      load_cpu_us_per_create_64: creates.loadCpuMicros / creates.count,
      gets_per_s_64: gets.perSecond,
      get_p50_ms_64: gets.p50,
      get_p99_ms_64: gets.p99,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

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
        const name = eventObjectName(line);
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
  for (let round = -WATCH_WARM_ROUNDS; round < WATCH_ROUNDS; round++) {
    const name = `w-${round}`;
    const latencies: number[] = [];
    const done = new Promise<void>((resolve) => (waiting = { name, t0: performance.now(), latencies, done: resolve }));
    const r = await client.request('POST', '/api/v1/namespaces/bench-watch/pods', JSON.stringify(benchPod(name, 'bench-watch')));
    if (r.status !== 201) throw new Error(`watch create: ${r.status}`);
    await done;
    if (round >= 0) deliveries.push(...latencies);
  }
  for (const close of closers) close();
  client.close();
  return {
    ...figures,
    list_10000_p50_ms: percentile(listTimes, 50),
    list_10000_bytes: listBytes,
    watch_p50_ms_1000: percentile(deliveries, 50),
    watch_p99_ms_1000: percentile(deliveries, 99),
  };
}

process.stdout.write(`${JSON.stringify(await main())}\n`);
process.exit(0);
