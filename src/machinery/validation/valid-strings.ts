/**
 * Strings a pure check has found valid lately. A cluster's objects repeat a
 * few strings in every pod (label keys and values, taint keys, the prefixes
 * of generated names), and a lookup in a set costs far less than the regular
 * expressions of the check. Only "valid" is remembered, and only for a pure
 * check (a string's answer never changes), so a remembered string gets the
 * answer the check would give. Bounded: cleared when full.
 */
export class ValidStrings {
  private readonly known = new Set<string>();

  constructor(
    private readonly check: (value: string) => boolean,
    private readonly max = 4096,
  ) {}

  /** The check's answer for `value`. */
  test(value: string): boolean {
    if (this.known.has(value)) return true;
    if (!this.check(value)) return false;
    if (this.known.size >= this.max) this.known.clear();
    this.known.add(value);
    return true;
  }
}
