/**
 * Upstream's message builders and message constants for validation, so that
 * every validator words the same failure the same way (k8s.io/apimachinery
 * pkg/util/validation and pkg/api/validation).
 */

import { tooLong } from '../field-errors.js';
import type { FieldError, FieldPath } from '../field-errors.js';

/** The detail for a value outside an inclusive range: `must be between 1 and 65535, inclusive`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** The detail for a string longer than allowed: `must be no more than 63 characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** The detail for an empty string that must not be: `must be non-empty`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/**
 * A regex failure, worded as upstream words it, examples and all:
 * `regexError('a … label must …', '[a-z]…', 'my-name', 'abc-123')` gives
 * `a … label must … (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]…')`.
 * (The doubled space before `or` is upstream's and users' tools match it.)
 */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

/** Upstream's IsNegativeErrorMsg. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/** Upstream's FieldImmutableErrorMsg. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';

/** `field.TooLong` with upstream 1.33's wording (see field-errors.ts's tooLong). */
export function tooLongBytes(path: FieldPath | string, max: number): FieldError {
  return tooLong(path, undefined, max);
}
