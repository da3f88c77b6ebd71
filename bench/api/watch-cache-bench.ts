/**
 * The watch cache of bench:api, in a process of its own (run with --expose-gc):
 * - a consistent list of 10,000 pods from the cache and from storage (the
 *   embedded sqlite store the API server uses), at the object-store level: what
 *   the cache saves, before the HTTP encoding both share;
 * - 1,000 watchers of pods with and without the cache on real etcd: etcd's own
 *   watcher count (etcd_debugging_mvcc_watcher_total from its /metrics), the
 *   heap they cost us, and the delivery latency of one change to all of them.
 *
 *   node --expose-gc watch-cache-bench.js SECONDS → one JSON line of results
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cacher } from '../../src/apiserver/registry/cacher/cacher.js';
import { ObjectStorage, type ObjectWatch } from '../../src/apiserver/registry/generic/object-storage.js';
import type { ObjectStore } from '../../src/apiserver/registry/generic/object-store.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { newEtcdStorage } from '../../src/storage/etcd/etcd-storage.js';
import { etcdMetric } from '../../src/storage/etcd/testing/etcd-metrics.js';
import { startEtcd } from '../../src/storage/etcd/testing/etcd-process.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { percentile } from '../common/stats.js';
import { benchPod } from './pod-template.js';

const seconds = Number(process.argv[2] ?? 5);
const LIST_SIZE = 10_000;
const WATCHERS = 1000;
const progress = (what: string): void => void process.stderr.write(`watch-cache: ${what}\n`);
const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function lists(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cache-'));
  const storage = openSqliteStorage({ path: join(dir, 'state.db'), compactIntervalMs: 0 });
  try {
    const objects = new ObjectStorage(storage);
    progress(`creating ${LIST_SIZE} pods`);
    for (let i = 0; i < LIST_SIZE; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) => objects.create(`/registry/pods/bench-list/l-${i + j}`, benchPod(`l-${i + j}`, 'bench-list') as unknown as KubeObject)),
      );
    }
    const cacher = new Cacher(objects, '/registry/pods/');
    await cacher.list('/registry/pods/'); // the cache lists once and starts watching
    const fromCache: number[] = [];
    const fromStorage: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    // Alternate the two, at least 10 rounds each.
    for (let round = 0; round < 10 || performance.now() < deadline; round++) {
      for (const [store, times] of [
        [cacher, fromCache],
        [objects, fromStorage],
      ] as [ObjectStore, number[]][]) {
        const t = performance.now();
        const list = await store.list('/registry/pods/bench-list/');
        times.push(performance.now() - t);
        if (list.items.length !== LIST_SIZE) throw new Error(`list returned ${list.items.length} items`);
      }
    }
    cacher.stop();
    const cache = percentile(fromCache, 50);
    const stored = percentile(fromStorage, 50);
    return { list_10k_ms_cache: cache, list_10k_ms_storage: stored, list_10k_storage_over_cache: stored / cache, list_10k_rounds: fromCache.length };
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 1,000 watchers on `store`: etcd's watcher count, our heap per watcher, and delivery latency p50/p99 over 20 changes. */
async function watchers(store: ObjectStore, objects: ObjectStorage, endpoint: string, namespace: string): Promise<{ etcdWatchers: number; heapPerWatcherBytes: number; p50: number; p99: number }> {
  await store.list(`/registry/pods/${namespace}/`);
  const before = heapUsed();
  const from = await objects.currentRevision();
  const watches: ObjectWatch[] = [];
  let waiting: { name: string; t0: number; latencies: number[]; done: () => void } | undefined;
  const readers: Promise<void>[] = [];
  for (let i = 0; i < WATCHERS; i++) {
    const watch = store.watch(`/registry/pods/${namespace}/`, from);
    watches.push(watch);
    readers.push(
      (async () => {
        for await (const event of watch) {
          const now = performance.now();
          const w = waiting;
          if (w !== undefined && event.object.metadata.name === w.name) {
            w.latencies.push(now - w.t0);
            if (w.latencies.length === WATCHERS) w.done();
          }
        }
      })(),
    );
  }
  const deliveries: number[] = [];
  let heapAfter = 0;
  for (let round = 0; round < 21; round++) {
    const name = `w-${round}`;
    const latencies: number[] = [];
    const done = new Promise<void>((resolve) => (waiting = { name, t0: performance.now(), latencies, done: resolve }));
    await objects.create(`/registry/pods/${namespace}/${name}`, benchPod(name, namespace) as unknown as KubeObject);
    await done;
    if (round === 0) heapAfter = heapUsed(); // every watcher is open and has had one event
    else deliveries.push(...latencies); // round 0 also opened the watches in etcd
  }
  const etcdWatchers = await etcdMetric(endpoint, 'etcd_debugging_mvcc_watcher_total');
  for (const w of watches) w.cancel();
  await Promise.all(readers);
  return { etcdWatchers, heapPerWatcherBytes: (heapAfter - before) / WATCHERS, p50: percentile(deliveries, 50), p99: percentile(deliveries, 99) };
}

async function watches(): Promise<Record<string, number>> {
  const etcd = await startEtcd();
  try {
    const storage = await newEtcdStorage({ endpoints: [etcd.endpoint] });
    const objects = new ObjectStorage(storage);
    progress(`${WATCHERS} watchers through the cache (etcd)`);
    const cacher = new Cacher(objects, '/registry/pods/');
    const cached = await watchers(cacher, objects, etcd.endpoint, 'bench-cached');
    cacher.stop();
    progress(`${WATCHERS} watchers straight on storage (etcd)`);
    const direct = await watchers(objects, objects, etcd.endpoint, 'bench-direct');
    await storage.close();
    return {
      storage_watches_for_1000_watchers: cached.etcdWatchers,
      storage_watches_for_1000_watchers_uncached: direct.etcdWatchers,
      watcher_heap_bytes_cache: cached.heapPerWatcherBytes,
      watcher_heap_bytes_uncached: direct.heapPerWatcherBytes,
      watch_p50_ms_1000_cache: cached.p50,
      watch_p99_ms_1000_cache: cached.p99,
      watch_p50_ms_1000_uncached: direct.p50,
      watch_p99_ms_1000_uncached: direct.p99,
    };
  } finally {
    await etcd.stop();
  }
}

const results = { ...(await lists()), ...(await watches()) };
process.stdout.write(`${JSON.stringify(results)}\n`);
process.exit(0);
