/**
 * Escaping of field selector values, as upstream's `fields.EscapeValue` and
 * `fields.UnescapeValue`: `\`, `,` and `=` inside a value are written `\\`,
 * `\,` and `\=`.
 */
import { badRequest } from '../status.js';

/**
 * A literal value written for a field selector.
 *
 * @example
 * escapeFieldValue('a,b=c\\d'); // => 'a\\,b\\=c\\\\d'
 */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/**
 * The literal value of an escaped field selector value; throws a BadRequest
 * StatusError with upstream's message for an unknown escape, a trailing
 * backslash, or a bare `,` or `=` (which upstream reports by its code point).
 *
 * @example
 * unescapeFieldValue('a\\,b'); // => 'a,b'
 * unescapeFieldValue('a=b');   // throws: invalid field selector: unescaped character in value: 61
 */
export function unescapeFieldValue(escaped: string): string {
  if (!/[\\,=]/.test(escaped)) return escaped;
  let out = '';
  let inSlash = false;
  for (const ch of escaped) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${ch}`);
      out += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${ch.codePointAt(0) ?? 0}`);
    } else {
      out += ch;
    }
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}
