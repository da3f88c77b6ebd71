/**
 * JSON as Go's encoding/json writes a value decoded into map[string]interface{}:
 * object keys sorted, no spaces, and Go's string escaping (`<`, `>`, `&`,
 * U+2028 and U+2029 as \u escapes; other control characters as \u00xx unless
 * they have a short form). Upstream's DaemonSet and StatefulSet controllers
 * store (and hash, and compare) a revision's data in exactly this form, and
 * kubectl compares against it, so revisions agree byte for byte.
 *
 * @example
 *   goSortedJson({ b: 1, a: '<x>' }) // '{"a":"\u003cx\u003e","b":1}'
 */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function goString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || ch === '<' || ch === '>' || ch === '&' || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}

/** Go's byte order of UTF-8 strings (sort.Strings), which for ASCII keys is JavaScript's order too. */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function goSortedJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map((item) => goSortedJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort(compareKeys);
    return `{${keys.map((k) => `${goString(k)}:${goSortedJson(record[k])}`).join(',')}}`;
  }
  throw new TypeError(`cannot encode a ${typeof value} as JSON`);
}
