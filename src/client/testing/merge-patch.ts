/**
 * JSON merge patch (RFC 7386), as application/merge-patch+json: objects
 * merge key by key, `null` removes a key, anything else (lists included)
 * replaces. Neither argument is changed.
 */
import { deepCopy, isPlainObject } from '../../machinery/meta.js';

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return deepCopy(patch);
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
