/**
 * Helpers for the table tests of every resource: a golden check of the
 * columns and a lookup of cells by column name.
 */
import assert from 'node:assert/strict';
import type { TableCell, TableConvertor } from '../../../../machinery/table.js';

/** [name, type, format, priority], in order. */
export type ColumnSpec = readonly [name: string, type: string, format: string, priority: number];

/** The fixed `now` of table tests: 2024-06-01T12:00:00Z. */
export const NOW = new Date('2024-06-01T12:00:00Z');

/** The RFC 3339 time `ms` milliseconds before NOW (second precision, as the API stores it). */
export function ago(ms: number): string {
  return new Date(NOW.getTime() - ms).toISOString().replace(/\.000Z$/, 'Z');
}

export const S = 1000;
export const M = 60 * S;
export const H = 60 * M;
export const D = 24 * H;

/** Asserts the columns are exactly `expected` and each has a description. */
export function assertColumns(convertor: TableConvertor<never>, expected: readonly ColumnSpec[]): void {
  const actual = convertor.columns.map((c) => [c.name, c.type, c.format, c.priority]);
  assert.deepEqual(actual, expected.map((c) => [...c]));
  for (const c of convertor.columns) {
    assert.ok(c.description.length > 0, `column ${c.name} has a description`);
  }
}

/** The cells of `object`, keyed by column name; asserts there is one cell per column. */
export function cellsByName<T>(convertor: TableConvertor<T>, object: T, now: Date = NOW): Record<string, TableCell> {
  const cells = convertor.cells(object, now);
  assert.equal(cells.length, convertor.columns.length, 'one cell per column');
  const out: Record<string, TableCell> = {};
  convertor.columns.forEach((c, i) => {
    out[c.name] = cells[i] ?? null;
  });
  return out;
}
