/**
 * Field paths and sets of them, as server-side apply tracks ownership
 * (structured-merge-diff's fieldpath package): a path is a list of elements
 * (a field name, an associative-list key, a set value or a list index), and
 * a set is a collection of paths. The wire form is FieldsV1 (`f:` field,
 * `k:` key, `v:` value, `i:` index, `.` for the node itself), written in
 * upstream's element order so that managedFields read byte for byte alike.
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

function compareStrings(a: string, b: string): number {
  // Go compares strings by bytes; UTF-8 byte order equals code point order.
  if (a === b) return 0;
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i]!.codePointAt(0)!;
    const y = cb[i]!.codePointAt(0)!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return ca.length < cb.length ? -1 : ca.length > cb.length ? 1 : 0;
}

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

/** The FieldsV1 key of one element: `f:name`, `k:{"name":"x"}`, `v:"a"`, `i:0`. */
export function serializeElement(e: PathElement): string {
  if ('field' in e) return `f:${e.field}`;
  if ('key' in e) return `k:{${e.key.map(([n, v]) => `${goJson(n)}:${goJson(v)}`).join(',')}}`;
  if ('value' in e) return `v:${goJson(e.value)}`;
  return `i:${e.index}`;
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
      return { value: parseJson(rest) };
    case 'k': {
      const parsed = parseJson(rest);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new FieldsDecodeError(`invalid key: ${s}`);
      return keyElement(Object.entries(parsed));
    }
    case 'i': {
      if (!/^-?\d+$/.test(rest)) throw new FieldsDecodeError(`invalid index: ${s}`);
      return { index: Number(rest) };
    }
    default:
      return undefined;
  }
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

const pathKey = (path: Path): string => path.map(serializeElement).join('\u0000');

export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareElements(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** An immutable-by-convention set of paths. Operations return new sets. */
export class FieldSet {
  private readonly paths = new Map<string, Path>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    this.paths.set(pathKey(path), [...path]);
  }

  has(path: Path): boolean {
    return this.paths.has(pathKey(path));
  }

  get size(): number {
    return this.paths.size;
  }

  empty(): boolean {
    return this.paths.size === 0;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    for (const [k, p] of other.paths) out.paths.set(k, p);
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, p] of this.paths) if (other.paths.has(k)) out.paths.set(k, p);
    return out;
  }

  /** The paths not in `other` (exact paths: a path under one of other's paths stays). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, p] of this.paths) if (!other.paths.has(k)) out.paths.set(k, p);
    return out;
  }

  /** The paths neither in `other` nor under one of its paths. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, p] of this.paths) {
      let covered = false;
      for (let i = 1; i <= p.length && !covered; i++) covered = other.paths.has(pathKey(p.slice(0, i)));
      if (!covered) out.paths.set(k, p);
    }
    return out;
  }

  /** The paths under `prefix`, with the prefix taken off. */
  withPrefix(prefix: PathElement): FieldSet {
    const out = new FieldSet();
    const head = serializeElement(prefix);
    for (const p of this.paths.values()) {
      if (p.length > 1 && serializeElement(p[0]!) === head) out.insert(p.slice(1));
    }
    return out;
  }

  /** Whether some path lies strictly under `path`. */
  hasChildrenOf(path: Path): boolean {
    const prefix = `${pathKey(path)}\u0000`;
    for (const k of this.paths.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [k, p] of this.paths) out.paths.set(k, p);
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.size !== other.size) return false;
    for (const k of this.paths.keys()) if (!other.paths.has(k)) return false;
    return true;
  }

  /** Every path, in upstream's iteration order: a node's own members first, then its children in order. */
  list(): Path[] {
    const out: Path[] = [];
    const walk = (node: TreeNode, prefix: PathElement[]): void => {
      for (const child of node.sorted()) if (child.member) out.push([...prefix, child.element]);
      for (const child of node.sorted()) if (child.children.size > 0) walk(child, [...prefix, child.element]);
    };
    walk(this.tree(), []);
    return out;
  }

  /** The FieldsV1 object of this set. */
  toFieldsV1(): { [key: string]: JsonValue } {
    const emit = (node: TreeNode, includeSelf: boolean): { [key: string]: JsonValue } => {
      const out: { [key: string]: JsonValue } = {};
      if (includeSelf && node.children.size > 0) out['.'] = {};
      for (const child of node.sorted()) out[serializeElement(child.element)] = child.children.size === 0 ? {} : emit(child, child.member);
      return out;
    };
    return emit(this.tree(), false);
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const out = new FieldSet();
    const walk = (node: unknown, prefix: PathElement[]): boolean => {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new FieldsDecodeError('FieldsV1 must be a JSON object');
      let member = false;
      let children = 0;
      for (const [key, value] of Object.entries(node)) {
        if (key === '.') {
          member = true;
          continue;
        }
        const element = deserializeElement(key);
        if (element === undefined) continue;
        children++;
        const path = [...prefix, element];
        if (walk(value, path)) out.insert(path);
      }
      return member || children === 0;
    };
    walk(fields ?? {}, []);
    return out;
  }

  private tree(): TreeNode {
    const root = new TreeNode({ field: '' });
    for (const p of this.paths.values()) {
      let node = root;
      for (const e of p) node = node.child(e);
      node.member = true;
    }
    return root;
  }
}

class TreeNode {
  member = false;
  readonly children = new Map<string, TreeNode>();
  constructor(readonly element: PathElement) {}

  child(e: PathElement): TreeNode {
    const k = serializeElement(e);
    let c = this.children.get(k);
    if (c === undefined) {
      c = new TreeNode(e);
      this.children.set(k, c);
    }
    return c;
  }

  sorted(): TreeNode[] {
    return [...this.children.values()].sort((a, b) => compareElements(a.element, b.element));
  }
}
