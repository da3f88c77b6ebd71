/**
 * Go's rendering of strings, string slices and string order, for the few
 * places where selector messages and canonical strings must match upstream
 * byte for byte.
 */
import { Buffer } from 'node:buffer';

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

const CONTROL_ESCAPES: Readonly<Record<number, string>> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
};

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/**
 * A string as Go's `%q` (strconv.Quote) prints it: double-quoted, with
 * non-printable characters escaped.
 *
 * @example
 * goQuote('a"b\n'); // => "\"a\\\"b\\n\""
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') {
      out += `\\${ch}`;
    } else if (cp >= 0x20 && cp < 0x7f) {
      out += ch;
    } else if (cp < 0x80) {
      out += CONTROL_ESCAPES[cp] ?? `\\x${hex(cp, 2)}`;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate reaches Go as U+FFFD once encoded as UTF-8; that is printable.
      out += '\ufffd';
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return `${out}"`;
}

/**
 * A string slice as Go's `%#v` prints it. An empty list prints as a nil
 * slice, because the upstream code that reports such values always copies
 * them with `append([]string(nil), …)`.
 *
 * @example
 * goStringSlice(['a', 'b']); // => '[]string{"a", "b"}'
 * goStringSlice([]);         // => '[]string(nil)'
 */
export function goStringSlice(values: readonly string[]): string {
  if (values.length === 0) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Go's string order: byte-wise over UTF-8. It differs from JavaScript's
 * UTF-16 order only for characters above U+FFFF against U+E000–U+FFFF.
 *
 * @example
 * ['b', 'a', 'B'].sort(compareGoStrings); // => ['B', 'a', 'b']
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The length Go's `len(s)` reports: bytes of UTF-8.
 *
 * @example
 * goByteLength('é'); // => 2
 */
export function goByteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
