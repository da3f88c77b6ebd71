/**
 * The keys of the watch cache in storage's order (UTF-8 byte order), kept
 * sorted as keys come and go, so that a list is a binary-searched range: the
 * keys of one namespace (`/registry/pods/ns/`) are one contiguous run, found in
 * O(log n) and read without looking at any other namespace.
 */
export class SortedKeys {
  private keys: string[] = [];
  /** How many keys hold a UTF-16 surrogate: while none does (and the key looked for has none), JavaScript's own string order is UTF-8 byte order. */
  private surrogateKeys = 0;

  get size(): number {
    return this.keys.length;
  }

  /** Replace the whole set (any order). */
  reset(keys: Iterable<string>): void {
    this.keys = [...keys].sort(compareKeys);
    this.surrogateKeys = this.keys.filter(hasSurrogate).length;
  }

  /** Add a key; a no-op when present. */
  add(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] === key) return;
    this.keys.splice(i, 0, key);
    if (hasSurrogate(key)) this.surrogateKeys++;
  }

  /** Remove a key; a no-op when absent. */
  delete(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] !== key) return;
    this.keys.splice(i, 1);
    if (hasSurrogate(key)) this.surrogateKeys--;
  }

  /** The keys under `prefix` strictly after `after` (if given), in order. */
  *range(prefix: string, after?: string): Generator<string> {
    let i = this.lowerBound(prefix);
    if (after !== undefined && compareKeys(after, prefix) >= 0) {
      i = this.lowerBound(after);
      if (this.keys[i] === after) i++;
    }
    for (; i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) return;
      yield key;
    }
  }

  /** The first index whose key is not below `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    if (this.surrogateKeys === 0 && !hasSurrogate(key)) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.keys[mid]! < key) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const SURROGATE = /[\ud800-\udfff]/;
const hasSurrogate = (key: string): boolean => SURROGATE.test(key);

/**
 * UTF-8 byte order (= code point order) of two strings, without encoding them:
 * UTF-16 code units compare the same way except that surrogates (U+D800–DFFF,
 * which encode code points above U+FFFF) must sort after U+E000–FFFF.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}
