/** Joining and truncating lists of values for one cell. */
import { UNSET } from './placeholders.js';

/**
 * Shows at most `max` values of a list with `+ N more...` after them, as
 * upstream prints endpoints, ports and addresses; an empty list is `<unset>`.
 *
 * @example
 * truncatedList(['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4']); // '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...'
 */
export function truncatedList(values: readonly string[], max = 3): string {
  if (values.length > max) return `${values.slice(0, max).join(',')} + ${values.length - max} more...`;
  const joined = values.join(',');
  return joined === '' ? UNSET : joined;
}

/** Sorted, de-duplicated copy of a list of strings (Go's sets.String.List). */
export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareStrings);
}

/** Byte-order comparison, as Go sorts strings (not locale order). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
