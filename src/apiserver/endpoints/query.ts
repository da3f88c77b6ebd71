/**
 * Query parameters shared by several verbs, parsed and checked as upstream
 * does: a bad value is a 400 that names the parameter.
 */
import { notSupported, RawValue } from '../../machinery/field-errors.js';
import { badRequest, invalid } from '../../machinery/status.js';

/**
 * `dryRun=All` (the only value upstream accepts); absent means a real write.
 * Any other value is upstream's ValidateDryRun error: a 422 Invalid of the
 * request's options kind (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions).
 */
export function parseDryRun(query: URLSearchParams, optionsKind: string): boolean {
  return validDryRun(query.getAll('dryRun'), optionsKind);
}

/** The values of a dryRun option (query or DeleteOptions body) checked as upstream's ValidateDryRun. */
export function validDryRun(values: readonly string[], optionsKind: string): boolean {
  if (values.length === 0) return false;
  if (values.some((v) => v !== 'All')) {
    // Upstream prints the []string with Go's %#v.
    const goValue = new RawValue(`[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`);
    throw invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [notSupported('dryRun', goValue, ['All'])]);
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
