/**
 * npm run bench:store — writes/s and p50/p99 latency of each storage backend
 * at 1, 16 and 64 concurrent writers, beside its raw engine measured in the
 * same run:
 *   sqlite: a plain better-sqlite3 loop into the same schema with the same
 *           synchronous level (FULL), committing batches of the mean batch
 *           size the store reached;
 *   etcd:   plain Put RPCs on the same kind of gRPC channel at the same
 *           concurrency, without the store's transactions and bookkeeping.
 * Each measurement runs in a process of its own and starts from an empty
 * engine: a fresh sqlite file, or a fresh real etcd on 127.0.0.1 with a
 * temporary data directory (fsync on), so that no figure depends on what the
 * measurements before it left behind. (etcd 3.4 copies its write buffer for
 * every transaction, and the Go garbage collection that this garbage causes
 * costs more the more keys etcd already holds: on one etcd shared by every
 * run, the later runs would pay for the earlier ones, transactions far more
 * than plain Puts.) BENCH_ETCD_SHARED=1 measures on one etcd for the whole run
 * instead, as earlier versions did. Store and raw runs alternate for ROUNDS
 * rounds and each figure is the median, so that noise on a shared machine
 * falls on both sides alike.
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdProcess } from '../../src/storage/etcd/testing/etcd-process.js';
import { machineDescription, printTable, round, writeResults } from '../common/stats.js';

const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = [1, 16, 64];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_BACKENDS=etcd (or sqlite) measures one backend only. */
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,etcd').split(',');
/** BENCH_ETCD_SHARED=1: one etcd for every etcd measurement instead of a fresh one each. */
const ETCD_SHARED = process.env.BENCH_ETCD_SHARED === '1';

/** The run with the median throughput. */
function median(results: Result[]): Result {
  const sorted = [...results].sort((a, b) => a.writesPerSecond - b.writesPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Alternate store and raw runs; the raw run of each round may depend on its store run (the batch size). */
async function pair(measureStore: () => Promise<Result>, measureRaw: (store: Result) => Promise<Result>): Promise<[Result, Result]> {
  const stores: Result[] = [];
  const raws: Result[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const store = await measureStore();
    stores.push(store);
    raws.push(await measureRaw(store));
  }
  return [median(stores), median(raws)];
}

interface Result {
  writesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanBatchSize?: number;
}

/** Run one etcd measurement against `shared`, or else against an etcd started for it alone. */
async function runOnEtcd(shared: EtcdProcess | undefined, mode: string, concurrency: number): Promise<Result> {
  if (shared !== undefined) return run(mode, concurrency, shared.endpoint);
  const etcd = await startEtcd();
  try {
    return await run(mode, concurrency, etcd.endpoint);
  } finally {
    await etcd.stop();
  }
}

function run(mode: string, concurrency: number, arg?: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WORKER, mode, String(concurrency), String(SECONDS), ...(arg !== undefined ? [arg] : [])], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${mode} ${concurrency} failed: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Result);
    });
  });
}

console.log(
  `bench:store on ${machineDescription()}; ${SECONDS} s per measurement, each in its own process on ${ETCD_SHARED ? 'one shared etcd' : 'a fresh engine'}, median of ${ROUNDS} alternating rounds`,
);
const results: Record<string, number | string> = { machine: machineDescription() };
const rows: (string | number)[][] = [];
const sharedEtcd = ETCD_SHARED && BACKENDS.includes('etcd') ? await startEtcd() : undefined;
try {
  for (const c of BACKENDS.includes('sqlite') ? CONCURRENCY : []) {
    const [store, raw] = await pair(
      () => run('sqlite-store', c),
      (s) => run('sqlite-raw', c, String(s.meanBatchSize ?? 1)),
    );
    const ratio = store.writesPerSecond / raw.writesPerSecond;
    rows.push(['sqlite', c, store.writesPerSecond, store.p50Ms, store.p99Ms, raw.writesPerSecond, raw.p50Ms, raw.p99Ms, ratio, store.meanBatchSize ?? 1]);
    Object.assign(results, {
      [`sqlite_writes_per_s_${c}`]: round(store.writesPerSecond, 0),
      [`sqlite_p50_ms_${c}`]: round(store.p50Ms, 3),
      [`sqlite_p99_ms_${c}`]: round(store.p99Ms, 3),
      [`sqlite_raw_writes_per_s_${c}`]: round(raw.writesPerSecond, 0),
      [`sqlite_mean_batch_${c}`]: round(store.meanBatchSize ?? 1, 1),
      [`sqlite_ratio_${c}`]: round(ratio, 3),
    });
  }
  for (const c of BACKENDS.includes('etcd') ? CONCURRENCY : []) {
    const [store, raw] = await pair(
      () => runOnEtcd(sharedEtcd, 'etcd-store', c),
      () => runOnEtcd(sharedEtcd, 'etcd-raw', c),
    );
    const ratio = store.writesPerSecond / raw.writesPerSecond;
    rows.push(['etcd', c, store.writesPerSecond, store.p50Ms, store.p99Ms, raw.writesPerSecond, raw.p50Ms, raw.p99Ms, ratio, '-']);
    Object.assign(results, {
      [`etcd_writes_per_s_${c}`]: round(store.writesPerSecond, 0),
      [`etcd_p50_ms_${c}`]: round(store.p50Ms, 3),
      [`etcd_p99_ms_${c}`]: round(store.p99Ms, 3),
      [`etcd_raw_writes_per_s_${c}`]: round(raw.writesPerSecond, 0),
      [`etcd_ratio_${c}`]: round(ratio, 3),
    });
  }
} finally {
  await sharedEtcd?.stop();
}
printTable(['backend', 'writers', 'writes/s', 'p50 ms', 'p99 ms', 'raw writes/s', 'raw p50', 'raw p99', 'ratio', 'batch'], rows);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`wrote ${writeResults('store', results)}`);
