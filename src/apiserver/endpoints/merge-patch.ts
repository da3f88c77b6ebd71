/**
 * JSON merge patch (RFC 7386): objects merge key by key, null deletes a key,
 * anything else (arrays included) replaces.
 *
 * @example mergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }) → { a: 1, b: { d: 3 } }
 */
import { isPlainObject } from '../../machinery/meta.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
