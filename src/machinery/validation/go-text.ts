import { RawValue } from '../field-errors.js';
/**
 * Go's view of strings and values, for messages that must read as upstream's:
 * lengths in UTF-8 bytes (Go's `len`), strings quoted as `strconv.Quote` does,
 * slices and structs as `%#v` prints them, and times as `time.Time.String()`.
 */

/** A string's length in UTF-8 bytes, as Go's `len(s)`: every limit upstream checks is in bytes. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const LONE_SURROGATE = /^[\ud800-\udfff]$/;

/**
 * Whether Go's `unicode.IsPrint` holds for the character: letters, marks,
 * numbers, punctuation, symbols and the ASCII space. A lone surrogate counts
 * as U+FFFD, which is what Go decodes it to.
 */
export function isGoPrintable(ch: string): boolean {
  return PRINTABLE.test(ch) || LONE_SURROGATE.test(ch);
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** `s` in double quotes as Go's `strconv.Quote` (and so `%q`) writes it: `goQuote('a"b')` is `"a\"b"`. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (LONE_SURROGATE.test(ch)) out += '\ufffd';
    else if (PRINTABLE.test(ch)) out += ch;
    else if (SHORT_ESCAPES[ch] !== undefined) out += SHORT_ESCAPES[ch];
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}

/** A `[]string` as `%#v` prints it: `[]string{"a", "b"}`, or `[]string(nil)` for none. */
export function goStringSlice(values: readonly string[] | null | undefined): string {
  if (values === null || values === undefined) return '[]string(nil)';
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** A value that a field error prints exactly as `text`, with no quotes (a Go struct, a time). */
export function goSyntax(text: string): unknown {
  return new RawValue(text);
}

/**
 * A timestamp as Go's time.Time.String() prints it in UTC: `2024-01-02
 * 03:04:05 +0000 UTC` (fractional seconds without trailing zeros); the zero
 * time for an absent one.
 */
export function goTime(timestamp: string | null | undefined): string {
  if (timestamp === null || timestamp === undefined || timestamp === '') return '0001-01-01 00:00:00 +0000 UTC';
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  const iso = date.toISOString(); // 2024-01-02T03:04:05.120Z
  const [day, rest] = iso.split('T') as [string, string];
  const [clock, fraction] = rest.replace('Z', '').split('.') as [string, string | undefined];
  const frac = fraction === undefined ? '' : fraction.replace(/0+$/, '');
  return `${day} ${clock}${frac === '' ? '' : `.${frac}`} +0000 UTC`;
}
