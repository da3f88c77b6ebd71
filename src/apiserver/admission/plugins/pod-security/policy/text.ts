/** The small text helpers every check's message uses, as upstream words them. */

/** `"a", "b"` (empty for none). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export const pluralize = (singular: string, plural: string, count: number): string => (count === 1 ? singular : plural);

/** `container "a"` / `containers "a", "b"`. */
export const containersPhrase = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

/** Distinct values in byte order (Go's sets.List()). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
