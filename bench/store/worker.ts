/**
 * One measurement of bench:store, run in a process of its own so that each
 * starts from a fresh file and a quiet heap. Prints one JSON line with the result.
 *
 *   node worker.js MODE CONCURRENCY SECONDS [ARG]
 *   MODE: sqlite-store | sqlite-raw (ARG: batch size) | etcd-store (ARG: endpoint) | etcd-raw (ARG: endpoint)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newEtcdStorage } from '../../src/storage/etcd/etcd-storage.js';
import { newRawEtcdPutter } from '../../src/storage/etcd/raw-put.js';
import type { Storage } from '../../src/storage/interface.js';
import { initSchema, newRawWriter } from '../../src/storage/sqlite/schema.js';
import { openSqliteStorage, type SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { closedLoop } from '../common/closed-loop.js';
import { percentile } from '../common/stats.js';

const [mode, concurrencyText, secondsText, arg] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const durationMs = Number(secondsText) * 1000;
/** A value the size of a small pod object. */
const VALUE = Buffer.alloc(1500, 'x');
const key = (prefix: string, writer: number, n: number): string => `${prefix}w${String(writer).padStart(2, '0')}-${String(n).padStart(7, '0')}`;

interface Result {
  writes: number;
  seconds: number;
  writesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanBatchSize?: number;
}

/** Warm-up before the measured window: connections open, code compiled, caches filled. */
const WARMUP_MS = 1000;

async function measure(write: (writer: number, n: number) => Promise<unknown>): Promise<Result> {
  const r = await closedLoop({ concurrency, durationMs, warmupMs: WARMUP_MS }, write);
  return { writes: r.count, seconds: r.seconds, writesPerSecond: r.perSecond, p50Ms: r.p50, p99Ms: r.p99 };
}

async function main(): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-store-'));
  try {
    switch (mode) {
      case 'sqlite-store': {
        const store: SqliteStorage = openSqliteStorage({ path: join(dir, 'state.db'), synchronous: 'FULL', compactIntervalMs: 0 });
        const result = await measure((w, n) => store.create(key('/registry/pods/bench/', w, n), VALUE));
        const stats = store.stats();
        await store.close();
        return { ...result, meanBatchSize: stats.meanBatchSize };
      }
      case 'sqlite-raw': {
        // The raw engine: the same schema, synchronous level and SQL per write,
        // committed in batches of the size the store reached, keys in the order
        // the store's writers produce them.
        const batch = Math.max(1, Math.round(Number(arg)));
        const db = new Database(join(dir, 'state.db'));
        initSchema(db, 'FULL');
        const write = newRawWriter(db);
        const latencies: number[] = [];
        const start = performance.now();
        const deadline = start + durationMs;
        let writes = 0;
        for (let n = 0; performance.now() < deadline; n++) {
          const rows = [];
          for (let i = 0; i < batch; i++) {
            const k = writes + i;
            rows.push({ key: key('/registry/pods/bench/', k % concurrency, Math.floor(k / concurrency)), value: VALUE });
          }
          const t = performance.now();
          write(rows);
          const latency = performance.now() - t;
          for (let i = 0; i < batch; i++) latencies.push(latency);
          writes += batch;
        }
        const seconds = (performance.now() - start) / 1000;
        db.close();
        return { writes, seconds, writesPerSecond: writes / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), meanBatchSize: batch };
      }
      case 'etcd-store': {
        const store: Storage = await newEtcdStorage({ endpoints: [arg!] });
        const prefix = `/registry/pods/bench-${process.pid}/`;
        const result = await measure((w, n) => store.create(key(prefix, w, n), VALUE));
        await store.close();
        return result;
      }
      case 'etcd-raw': {
        const putter = newRawEtcdPutter(arg!);
        const prefix = `/raw/bench-${process.pid}/`;
        const result = await measure((w, n) => putter.put(key(prefix, w, n), VALUE));
        putter.close();
        return result;
      }
      default:
        throw new Error(`unknown mode ${mode}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.stdout.write(`${JSON.stringify(await main())}\n`);
