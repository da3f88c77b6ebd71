/**
 * JSON objects as CEL sees them. Kubernetes integer fields are CEL ints, so
 * whole JSON numbers become BigInt (cel-js's int); other numbers stay doubles.
 * Without the OpenAPI schema a whole-valued double field reads as an int too,
 * and date-time strings stay strings (upstream types them as timestamps).
 */
export type CelValue = null | boolean | string | number | bigint | CelValue[] | { [key: string]: CelValue };

export function toCelValue(value: unknown): CelValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
    case 'bigint':
      return value;
    case 'number':
      return Number.isInteger(value) ? BigInt(value) : value;
    case 'object': {
      if (Array.isArray(value)) return value.map(toCelValue);
      const out: { [key: string]: CelValue } = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v !== undefined) out[k] = toCelValue(v);
      }
      return out;
    }
    default:
      return null;
  }
}
