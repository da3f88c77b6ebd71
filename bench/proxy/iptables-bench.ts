/**
 * Standalone entry of the iptables sync benchmark (`node dist/bench/proxy/iptables-bench.js`):
 * runs benchIptablesSync, prints a table, and merges its keys into
 * bench/results/proxy.json (read, add, write: the userspace figures stay).
 * Needs root (it creates a network namespace); without it, it says so and exits 0.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machineDescription, printTable, round, writeResults } from '../common/stats.js';
import { benchIptablesSync } from './iptables-sync.js';

if (process.getuid?.() !== 0) {
  console.log('iptables sync benchmark skipped: it needs root to create a network namespace');
  process.exit(0);
}

const result = await benchIptablesSync();
printTable(
  ['iptables proxier, 1,000 services × 10 endpoints', 'ms'],
  [
    ['full sync (first sync of a proxier)', result.rules_sync_ms_1000_services],
    ['one endpoint changed (median)', result.rules_sync_ms_1000_services_one_change],
    ['restart (iptables-save, then every chain rewritten)', result.rules_sync_ms_1000_services_restart],
    ['nat rules', result.rules_sync_nat_rules_1000_services],
  ],
);
const path = fileURLToPath(new URL('../../../bench/results/proxy.json', import.meta.url));
const existing = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number | string>) : {};
const merged: Record<string, number | string> = { ...existing, machine: existing.machine ?? machineDescription() };
for (const [k, v] of Object.entries(result)) merged[k] = round(v, k.includes('rules_sync_ms') ? 1 : 0);
console.log(`wrote ${writeResults('proxy', merged)}`);
