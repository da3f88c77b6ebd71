/** Small helpers every benchmark shares: percentiles, a printed table, and the results file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The p-th percentile (0–100) of values, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Print rows as an aligned table. */
/** A results object as a two-column table, without its `machine` and `notes`. */
export function printResults(results: Readonly<Record<string, unknown>>): void {
  printTable(
    ['measure', 'value'],
    Object.entries(results)
      .filter(([k]) => k !== 'machine' && k !== 'notes')
      .map(([k, v]) => [k, typeof v === 'number' ? v : String(v)]),
  );
}

export function printTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? String(round(c)) : c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  for (const [n, row] of cells.entries()) {
    console.log(row.map((c, i) => String(c).padEnd(widths[i]!)).join('  '));
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

/** A line naming the machine, for the README's performance section. */
export function machineDescription(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Write bench/results/NAME.json: one flat object of named numbers (and the machine). */
export function writeResults(name: string, results: Record<string, number | string>): string {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const path = join(root, 'bench', 'results', `${name}.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return path;
}
