/**
 * npm run bench:proxy — the kube-proxy's data path and rule syncs. Each mode's
 * part is a file of its own in this folder returning named numbers; this file
 * runs them, prints a table and writes bench/results/proxy.json, keeping the
 * keys of parts not run this time (BENCH_PROXY_PARTS=userspace runs only that).
 *
 *   userspace (userspace-bench.ts): connections/s and added latency through
 *   the userspace forwarder vs a direct connection, same run:
 *   userspace_vs_direct_ratio = forwarded connections/s ÷ direct (median
 *   of six pairs of neighbouring 2-second rounds); and the
 *   CPU time per connection of the forwarder, the backend and the load
 *   generators (one per core; BENCH_PROXY_GENERATORS=N for another count),
 *   and userspace_vs_direct_cpu_ratio, the rate ratio those costs imply
 *   (steadier than the rates when the machine is shared).
 *   iptables (iptables-sync.ts, root only: it makes a network namespace):
 *   the iptables proxier syncing 1,000 Services with 10,000 endpoints;
 *   rules_sync_ms_1000_services = the time to apply one changed endpoint.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDescription, printTable, round, writeResults } from '../common/stats.js';
import { benchIptablesSync } from './iptables-sync.js';
import { benchUserspace } from './userspace-bench.js';

type Part = () => Promise<Record<string, number>>;

const PARTS: Readonly<Record<string, Part>> = {
  userspace: () => {
    const generators = process.env.BENCH_PROXY_GENERATORS;
    return benchUserspace({ concurrency: 32, roundMs: 2_000, rounds: 6, ...(generators !== undefined ? { generators: Number(generators) } : {}) });
  },
  iptables: async () => {
    if (process.getuid?.() !== 0) {
      console.log('bench:proxy — iptables skipped: it needs root to make a network namespace');
      return {};
    }
    return { ...(await benchIptablesSync()) };
  },
};

const wanted = (process.env.BENCH_PROXY_PARTS ?? Object.keys(PARTS).join(',')).split(',').filter((p) => p in PARTS);
const resultsPath = fileURLToPath(new URL('../../../bench/results/proxy.json', import.meta.url));
const previous: Record<string, number | string> = existsSync(resultsPath) ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as Record<string, number | string>) : {};

const measured: Record<string, number> = {};
for (const name of wanted) {
  console.log(`bench:proxy — ${name}…`);
  Object.assign(measured, await PARTS[name]!());
}
printTable(['figure', 'value'], Object.entries(measured).map(([k, v]) => [k, round(v, 3)]));
const rounded = Object.fromEntries(Object.entries(measured).map(([k, v]) => [k, round(v, 3)]));
const path = writeResults('proxy', { ...previous, machine: machineDescription(), ...rounded });
console.log(`wrote ${path}`);
