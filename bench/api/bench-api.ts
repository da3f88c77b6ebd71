/**
 * npm run bench:api — the API server under load, over HTTPS (HTTP/2, 8
 * connections, the load generator in a process of its own), on the embedded
 * sqlite store; each figure beside the bare storage layer measured in the same
 * run (bare-store.ts, also a process of its own):
 *   pod creates/s and p50/p99 at 64 concurrent requests; gets/s; the time to
 *   list 10,000 pods; the delivery latency p50/p99 of one change to 1,000 watchers.
 * And the watch cache (watch-cache-bench.ts, a process of its own): a list of
 * 10,000 pods from the cache and from storage, and 1,000 watchers with and
 * without the cache on real etcd, their storage watches counted by etcd itself.
 * And, once the other processes have ended, in this process: protobuf against
 * JSON for one pod (codec-bench.ts), Go's JSON shape of a pod against
 * JSON.parse + stringify (go-shape-bench.ts), and the field manager's CPU per
 * write (fieldmanager-bench.ts).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startK8ts } from '../../test/e2e/testing/k8ts-process.js';
import { machineDescription, printTable, round, writeResults } from '../common/stats.js';
import { measureCodec, printCodecTable } from './codec-bench.js';
import { measureFieldManager } from './fieldmanager-bench.js';
import { measureGoShape, printGoShapeTable } from './go-shape-bench.js';
import { measurePipeline, printPipelineTable } from './pipeline-bench.js';
import { API_SERVER_V8_FLAGS } from '../../src/cmd/apiserver-v8-flags.js';
import { waitFor } from '../../src/client/testing/wait-for.js';
import { WATCH_ROUNDS, WATCH_WARM_ROUNDS } from './watch-rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** `k8ts apiserver --workers`: processes serving the API (one per core here). */
const WORKERS = Number(process.env.BENCH_API_WORKERS ?? 2);
const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

function runJson(script: string, args: string[], nodeFlags: string[] = []): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...nodeFlags, script, ...args], { maxBuffer: 1 << 24, timeout: 300_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${script} failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number>);
    });
  });
}

console.log(
  `bench:api on ${machineDescription()}: k8ts apiserver --workers ${WORKERS} on the sqlite store; creates and gets from h2load (its own process: HTTP/2, 8 TLS connections, 64 streams in flight), list and watchers from a Node process (HTTP/2, 8 TLS connections); watch delivery over ${WATCH_ROUNDS} changes after ${WATCH_WARM_ROUNDS} uncounted warm-up changes`,
);
const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
// h2load presents a bearer token: a static token of a system:masters user (the Node client presents the admin certificate).
const token = randomBytes(16).toString('hex');
writeFileSync(join(dir, 'tokens.csv'), `${token},bench-admin,bench-admin-uid,"system:masters"\n`);
// With the V8 flags `k8ts server` gives its API server (src/cmd/apiserver-v8-flags.ts), which the workers get too;
// not the components' interrupt budget (src/cmd/supervisor.ts), which slows the warm-up this short load measures.
const server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1', '--token-auth-file', join(dir, 'tokens.csv'), '--workers', String(WORKERS)], {
  nodeArgs: API_SERVER_V8_FLAGS,
});
let api: Record<string, number>;
try {
  const line = await server.waitForLine(/^apiserver: serving on /, 60_000);
  const url = line.replace(/^apiserver: serving on /, '').trim();
  // Until its workers are ready the primary serves every connection itself.
  const workersReady = (): number => server.output().split('\n').filter((l) => l.includes('"API server worker ready"')).length;
  await waitFor(() => workersReady() >= WORKERS - 1, { timeoutMs: 60_000, description: `${WORKERS - 1} API server workers ready` });
  api = await runJson(here('./load.js'), [url, join(dir, 'pki'), String(SECONDS), String(server.child.pid), token]);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
const bare = await runJson(here('./bare-store.js'), [String(SECONDS)]);
const cache = await runJson(here('./watch-cache-bench.js'), [String(SECONDS)], ['--expose-gc']);
const pipeline = await measurePipeline({ seconds: SECONDS });
// The in-process measures run once the other processes have ended.
const codecFigures = measureCodec({ msPerMeasure: 1000 });
const shapeFigures = measureGoShape({ msPerMeasure: 1000 });
const fieldManagerFigures = measureFieldManager({ msPerMeasure: 1000 });
const results: Record<string, number | string> = { machine: machineDescription() };
for (const [k, v] of Object.entries({ ...api, ...bare, ...cache, ...codecFigures, ...shapeFigures, ...fieldManagerFigures, ...pipeline })) results[k] = round(v, 3);
results.creates_ratio_64 = round(api.creates_per_s_64! / bare.bare_creates_per_s_64!, 3);
printTable(
  ['measure', 'API server', 'bare store', 'ratio'],
  [
    ['pod creates/s (64 concurrent)', api.creates_per_s_64!, bare.bare_creates_per_s_64!, api.creates_per_s_64! / bare.bare_creates_per_s_64!],
    ['create p50 ms', api.create_p50_ms_64!, bare.bare_create_p50_ms_64!, api.create_p50_ms_64! / bare.bare_create_p50_ms_64!],
    ['create p99 ms', api.create_p99_ms_64!, bare.bare_create_p99_ms_64!, api.create_p99_ms_64! / bare.bare_create_p99_ms_64!],
    ['gets/s (64 concurrent)', api.gets_per_s_64!, bare.bare_gets_per_s_64!, api.gets_per_s_64! / bare.bare_gets_per_s_64!],
    ['list 10,000 pods, p50 ms', api.list_10000_p50_ms!, bare.bare_list_10000_p50_ms!, api.list_10000_p50_ms! / bare.bare_list_10000_p50_ms!],
    ['watch delivery to 1,000, p50 ms', api.watch_p50_ms_1000!, bare.bare_watch_p50_ms_1000!, api.watch_p50_ms_1000! / bare.bare_watch_p50_ms_1000!],
    ['watch delivery to 1,000, p99 ms', api.watch_p99_ms_1000!, bare.bare_watch_p99_ms_1000!, api.watch_p99_ms_1000! / bare.bare_watch_p99_ms_1000!],
  ],
);
console.log(`CPU µs per create (64 concurrent): the API server (${WORKERS} processes) ${round(api.server_cpu_us_per_create_64!, 0)}, h2load ${round(api.load_cpu_us_per_create_64!, 0)}`);
console.log('\nwatch cache (object-store level; watchers on real etcd, counted from its /metrics)');
printTable(
  ['measure', 'with the cache', 'without', 'ratio'],
  [
    ['list 10,000 pods, p50 ms (sqlite)', cache.list_10k_ms_cache!, cache.list_10k_ms_storage!, cache.list_10k_ms_storage! / cache.list_10k_ms_cache!],
    ['etcd watchers for 1,000 watches', cache.storage_watches_for_1000_watchers!, cache.storage_watches_for_1000_watchers_uncached!, cache.storage_watches_for_1000_watchers_uncached! / cache.storage_watches_for_1000_watchers!],
    ['our heap per watcher, bytes', cache.watcher_heap_bytes_cache!, cache.watcher_heap_bytes_uncached!, cache.watcher_heap_bytes_uncached! / cache.watcher_heap_bytes_cache!],
    ['delivery to 1,000, p50 ms', cache.watch_p50_ms_1000_cache!, cache.watch_p50_ms_1000_uncached!, cache.watch_p50_ms_1000_uncached! / cache.watch_p50_ms_1000_cache!],
    ['delivery to 1,000, p99 ms', cache.watch_p99_ms_1000_cache!, cache.watch_p99_ms_1000_uncached!, cache.watch_p99_ms_1000_uncached! / cache.watch_p99_ms_1000_cache!],
  ],
);
console.log('');
printPipelineTable(pipeline);
console.log('');
printCodecTable(codecFigures);
console.log('');
printGoShapeTable(shapeFigures);
console.log('');
console.log('field manager, CPU µs per operation (fieldmanager-bench.ts)');
for (const [k, v] of Object.entries(fieldManagerFigures)) console.log(`  ${k}: ${round(v, 2)}`);
console.log(`wrote ${writeResults('api', results)}`);
