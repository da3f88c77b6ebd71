/**
 * A deep copy of a JSON value (objects, arrays, strings, numbers, booleans,
 * null), several times cheaper than structuredClone, which serializes
 * through its general-purpose algorithm. Properties holding undefined are
 * kept, as structuredClone keeps them.
 */
import type { JsonValue } from './path-element.js';

export function cloneJson<T extends JsonValue | undefined>(value: T): T {
  return copy(value) as T;
}

function copy(v: JsonValue | undefined): JsonValue | undefined {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array<JsonValue>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copy(v[i]) as JsonValue;
    return out;
  }
  const out: { [key: string]: JsonValue } = {};
  for (const k in v) out[k] = copy(v[k]) as JsonValue;
  return out;
}
