/**
 * JSON values seen as Go sees them after decoding into interface{}: the
 * dynamic type a value has (map[string]interface {}, []interface {}, string,
 * bool, int64, float64 or nil), equality as Go's `==` on interface values, and
 * the `%v` text fmt prints. Strategic merge patch compares and reports values
 * in these terms, so its results and messages follow from them.
 *
 * Numbers: upstream decodes with ints preserved, so an integral number is an
 * int64 and any other a float64.
 */

/** An object of a JSON document. */
export type JsonMap = Record<string, unknown>;

export type GoKind = 'map' | 'slice' | 'string' | 'bool' | 'int64' | 'float64' | 'nil';

export function isJsonMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map';
  }
}

/** reflect.TypeOf(v).String(), as Go's error messages print it. */
export function goTypeName(v: unknown): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'nil':
      return '<nil>';
    default:
      return goKind(v);
  }
}

/** The type name of an expected value, for messages like `expected a map[string]interface {}, …`. */
export const GO_MAP = 'map[string]interface {}';
export const GO_SLICE = '[]interface {}';

/**
 * Go's `==` between two interface values: same dynamic type and same value.
 * (Go panics comparing maps or slices; here they are simply unequal, unless nil.)
 */
export function goEqual(a: unknown, b: unknown): boolean {
  const ka = goKind(a);
  if (ka !== goKind(b)) return false;
  return ka === 'nil' || a === b;
}

/** A key under which Go's map[interface{}] would file a primitive value. */
export function goKey(v: unknown): string {
  const kind = goKind(v);
  if (kind === 'map' || kind === 'slice') return `${kind}:${goFormat(v)}`;
  return `${kind}:${String(v)}`;
}

/** fmt's `%v` of a decoded JSON value: `map[a:1 b:[x y]]`, keys sorted. */
export function goFormat(v: unknown): string {
  switch (goKind(v)) {
    case 'nil':
      return '<nil>';
    case 'slice':
      return `[${(v as unknown[]).map(goFormat).join(' ')}]`;
    case 'map': {
      const m = v as JsonMap;
      const keys = Object.keys(m).sort(compareGoStrings);
      return `map[${keys.map((k) => `${k}:${goFormat(m[k])}`).join(' ')}]`;
    }
    case 'float64':
      return formatGoFloat(v as number);
    default:
      return String(v);
  }
}

/** fmt's `%s` of an interface value: a string as is, anything else as `%!s(type=value)`. */
export function goFormatS(v: unknown): string {
  if (typeof v === 'string') return v;
  if (goKind(v) === 'nil') return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goFormat(v)})`;
}

/** Go orders strings by their UTF-8 bytes. */
export function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** strconv's 'g' format with the shortest digits, as %v prints a float64 (exponent form below 1e-4 and from 1e+06). */
function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  const [mantissa, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) {
    // Go writes at least two exponent digits: 1e+06, 1.5e-07.
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(f);
}
