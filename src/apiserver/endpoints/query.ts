/**
 * Query parameters shared by several verbs, parsed and checked as upstream
 * does: a bad value is a 400 that names the parameter.
 */
import { badRequest } from '../../machinery/status.js';

/** `dryRun=All` (the only value upstream accepts); absent means a real write. */
export function parseDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') throw badRequest(`Invalid dryRun value: ${JSON.stringify(values)}: supported values: "All"`);
  }
  return true;
}

/** A non-negative integer parameter, or undefined when absent. */
export function parseNonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (!/^-?\d+$/.test(value)) throw badRequest(`invalid value for ${name}: "${value}" is not an integer`);
  const n = Number(value);
  if (n < 0) throw badRequest(`invalid value for ${name}: ${value} must be greater than or equal to 0`);
  return n;
}

/**
 * A boolean parameter as upstream's query decoder reads it: absent is false;
 * "0" and "false" (any case) are false; any other value, even "", is true.
 * The first value counts.
 */
export function parseBool(query: URLSearchParams, name: string): boolean {
  return queryBool(query.get(name));
}

export function queryBool(value: string | null): boolean {
  if (value === null) return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}
