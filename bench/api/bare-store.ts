/**
 * The bare storage layer under the same load as bench:api, in a process of its
 * own: the sqlite store the API server uses, driven directly with the same
 * objects (encoded as the API server stores them), no HTTP, no API machinery.
 *
 *   node bare-store.js SECONDS → one JSON line of results
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { closedLoop } from '../common/closed-loop.js';
import { percentile } from '../common/stats.js';
import { benchPod } from './pod-template.js';
import { WATCH_ROUNDS, WATCH_WARM_ROUNDS } from './watch-rounds.js';

const seconds = Number(process.argv[2]);
const CONCURRENCY = 64;
const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
const store = openSqliteStorage({ path: join(dir, 'state.db'), compactIntervalMs: 0 });

function encoded(name: string, namespace: string): Buffer {
  const pod = benchPod(name, namespace);
  (pod.metadata as Record<string, unknown>).uid = randomUUID();
  (pod.metadata as Record<string, unknown>).creationTimestamp = new Date().toISOString();
  return Buffer.from(JSON.stringify(pod));
}

const keys: string[] = [];
const creates = await closedLoop({ concurrency: CONCURRENCY, durationMs: seconds * 1000 }, async (w, n) => {
  const key = `/registry/pods/bench-create/p-${w}-${n}`;
  await store.create(key, encoded(`p-${w}-${n}`, 'bench-create'));
  keys.push(key);
});
const gets = await closedLoop({ concurrency: CONCURRENCY, durationMs: seconds * 1000 }, async (w, n) => {
  const kv = await store.get(keys[(w * 7919 + n) % keys.length]!);
  JSON.parse(Buffer.from(kv!.value).toString('utf8'));
});
for (let i = 0; i < 10_000; i += 500) {
  await Promise.all(Array.from({ length: 500 }, (_, j) => store.create(`/registry/pods/bench-list/l-${i + j}`, encoded(`l-${i + j}`, 'bench-list'))));
}
const listTimes: number[] = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  const list = await store.list('/registry/pods/bench-list/');
  // Decode as the API server must, to compare like with like.
  for (const kv of list.items) JSON.parse(Buffer.from(kv.value).toString('utf8'));
  listTimes.push(performance.now() - t);
}
const watches = Array.from({ length: 1000 }, () => store.watch('/registry/pods/bench-watch/', 0));
const deliveries: number[] = [];
for (let round = -WATCH_WARM_ROUNDS; round < WATCH_ROUNDS; round++) {
  const t0 = performance.now();
  const write = store.create(`/registry/pods/bench-watch/w-${round}`, encoded(`w-${round}`, 'bench-watch'));
  await Promise.all(
    watches.map(async (w) => {
      const it = w[Symbol.asyncIterator]();
      await it.next();
      if (round >= 0) deliveries.push(performance.now() - t0);
    }),
  );
  await write;
}
for (const w of watches) w.cancel();
await store.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({
    bare_creates_per_s_64: creates.perSecond,
    bare_create_p50_ms_64: creates.p50,
    bare_create_p99_ms_64: creates.p99,
    bare_gets_per_s_64: gets.perSecond,
    bare_list_10000_p50_ms: percentile(listTimes, 50),
    bare_watch_p50_ms_1000: percentile(deliveries, 50),
    bare_watch_p99_ms_1000: percentile(deliveries, 99),
  })}\n`,
);
