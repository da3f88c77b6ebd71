/**
 * Fields that may not change on update: upstream's ValidateImmutableField,
 * with its semantic equality (an absent or null list or map equals an empty one).
 */

import { invalid, type FieldError, type FieldPath } from '../field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from './messages.js';

const isEmptyish = (v: unknown): boolean =>
  v === null ||
  v === undefined ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

/**
 * Deep equality of JSON values as upstream's semantic equality sees them:
 * absent, null, `[]` and `{}` are equal where a list or map is expected;
 * object key order does not matter.
 */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aList = Array.isArray(a);
  const bList = Array.isArray(b);
  const aMap = typeof a === 'object' && a !== null && !aList;
  const bMap = typeof b === 'object' && b !== null && !bList;
  if ((aList || aMap || bList || bMap) && isEmptyish(a) && isEmptyish(b)) return true;
  if (aList && bList) return a.length === b.length && a.every((v, i) => semanticDeepEqual(v, b[i]));
  if (aMap && bMap) {
    const ak = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const bk = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return (
      ak.length === bk.length &&
      ak.every((k) => semanticDeepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

/** `spec.selector: Invalid value: …: field is immutable` when the new value differs from the old. */
export function validateImmutableField(newValue: unknown, oldValue: unknown, path: FieldPath): FieldError[] {
  return semanticDeepEqual(newValue, oldValue) ? [] : [invalid(path, newValue, FIELD_IMMUTABLE_ERROR_MSG)];
}
