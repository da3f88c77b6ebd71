/**
 * Path elements of server-side apply (structured-merge-diff's fieldpath
 * package): a field name, an associative-list key, a set value or a list
 * index; their FieldsV1 keys (`f:` field, `k:` key, `v:` value, `i:` index),
 * upstream's order of them, and the text conflict messages print.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type PathElement =
  | { readonly field: string }
  | { readonly key: ReadonlyArray<readonly [string, JsonValue]> }
  | { readonly value: JsonValue }
  | { readonly index: number };

export type Path = readonly PathElement[];

export const fieldElement = (name: string): PathElement => ({ field: name });

/** A key element; its fields are sorted by name, as upstream sorts them. */
export function keyElement(fields: ReadonlyArray<readonly [string, JsonValue]>): PathElement {
  return { key: [...fields].sort(([a], [b]) => compareStrings(a, b)) };
}

/** Go's string order: by UTF-8 bytes, which is code point order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/**
 * UTF-16 units ordered as the code points they belong to: a surrogate (part
 * of a code point above U+FFFF) sorts after every other unit.
 */
const codePointRank = (unit: number): number => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit);

const isFloat = (v: JsonValue): boolean => typeof v === 'number' && !Number.isInteger(v);

/** Upstream's value ordering: numbers, strings, booleans, lists, maps, then null. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const rank = (v: JsonValue): number => {
    if (typeof v === 'number') return isFloat(v) ? 0 : 1;
    if (typeof v === 'string') return 2;
    if (typeof v === 'boolean') return 3;
    if (Array.isArray(v)) return 4;
    if (v !== null) return 5;
    return 6;
  };
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i]!, b[i]!);
      if (c !== 0) return c;
    }
    return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).sort(compareStrings);
    const kb = Object.keys(b).sort(compareStrings);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      const c = compareStrings(ka[i]!, kb[i]!);
      if (c !== 0) return c < 0 ? -1 : 1; // the key only one side has decides
      const v = compareValues(a[ka[i]!]!, b[kb[i]!]!);
      if (v !== 0) return v;
    }
    return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
  }
  return 0;
}

function elementRank(e: PathElement): number {
  if ('field' in e) return 0;
  if ('key' in e) return 1;
  if ('value' in e) return 2;
  return 3;
}

/** Upstream's element order: field names, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  const ra = elementRank(a);
  const rb = elementRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if ('field' in a && 'field' in b) return compareStrings(a.field, b.field);
  if ('key' in a && 'key' in b) {
    for (let i = 0; i < Math.min(a.key.length, b.key.length); i++) {
      const c = compareStrings(a.key[i]![0], b.key[i]![0]);
      if (c !== 0) return c;
      const v = compareValues(a.key[i]![1], b.key[i]![1]);
      if (v !== 0) return v;
    }
    return a.key.length < b.key.length ? -1 : a.key.length > b.key.length ? 1 : 0;
  }
  if ('value' in a && 'value' in b) return compareValues(a.value, b.value);
  if ('index' in a && 'index' in b) return a.index < b.index ? -1 : a.index > b.index ? 1 : 0;
  return 0;
}

/** JSON as Go's encoding/json writes it (HTML characters and line separators escaped). */
export function goJson(value: JsonValue): string {
  if (typeof value === 'string' && /^[\w .:/@+=,-]*$/.test(value)) return `"${value}"`;
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/**
 * FieldsV1 keys of field names, kept so that the same name gives the same
 * string (whose hash is computed once); bounded, as names come from users.
 */
const fieldKeys = new Map<string, string>();
const MAX_FIELD_KEYS = 20_000;

export function fieldKey(name: string): string {
  let k = fieldKeys.get(name);
  if (k === undefined) {
    if (fieldKeys.size >= MAX_FIELD_KEYS) fieldKeys.clear();
    k = `f:${name}`;
    fieldKeys.set(name, k);
  }
  return k;
}

/** FieldsV1 keys of key and value elements, computed once per element object. */
const serialized = new WeakMap<PathElement, string>();

/** The FieldsV1 key of one element: `f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`. */
export function serializeElement(e: PathElement): string {
  if ('field' in e) return fieldKey(e.field);
  let s = serialized.get(e);
  if (s === undefined) {
    if ('key' in e) s = `k:{${e.key.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
    else if ('value' in e) s = `v:${goJson(e.value)}`;
    else s = `i:${e.index}`;
    serialized.set(e, s);
  }
  return s;
}

export class FieldsDecodeError extends Error {}

/** The element a FieldsV1 key names; undefined for a type upstream does not know (skipped, as upstream does). */
export function deserializeElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldsDecodeError('key must be 2 characters long:');
  if (s[1] !== ':') throw new FieldsDecodeError(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: rest };
    case 'v':
    case 'k': {
      let e = decodedKeys.get(s);
      if (e === undefined) {
        e = s[0] === 'v' ? { value: parseJson(rest) } : keyOf(s, parseJson(rest));
        if (decodedKeys.size >= MAX_DECODED_KEYS) decodedKeys.clear();
        decodedKeys.set(s, e);
      }
      return e;
    }
    case 'i': {
      if (!/^-?\d+$/.test(rest)) throw new FieldsDecodeError(`invalid index: ${s}`);
      return { index: Number(rest) };
    }
    default:
      return undefined;
  }
}

/** Key and value elements by their FieldsV1 key: the same items come back in every entry of every object (bounded). */
const decodedKeys = new Map<string, PathElement>();
const MAX_DECODED_KEYS = 20_000;

function keyOf(s: string, parsed: JsonValue): PathElement {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new FieldsDecodeError(`invalid key: ${s}`);
  return keyElement(Object.entries(parsed));
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e: unknown) {
    throw new FieldsDecodeError(`invalid JSON in path element: ${text}`, { cause: e });
  }
}

/** A path as upstream prints it in conflict messages: `.spec.containers[name="app"].image`. */
export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

function valueString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}=${valueString(x)}`).join('');
  return String(v);
}

function elementString(e: PathElement): string {
  if ('field' in e) return `.${e.field}`;
  if ('key' in e) return `[${e.key.map(([n, v]) => `${n}=${valueString(v)}`).join(',')}]`;
  if ('value' in e) return `[=${valueString(e.value)}]`;
  return `[${e.index}]`;
}

export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareElements(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

