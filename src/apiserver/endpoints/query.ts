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

/**
 * An int64 parameter as upstream's query decoder reads it (Go's
 * strconv.ParseInt of the trimmed first value): absent or blank is undefined,
 * negative values are kept, anything else is a 400 with Go's error text.
 */
export function parseInt64(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  const value = raw?.trim() ?? '';
  if (value === '') return undefined;
  if (!/^[-+]?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return Number(n);
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
