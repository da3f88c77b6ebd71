/**
 * Sets of field paths, as server-side apply tracks ownership
 * (structured-merge-diff's fieldpath.Set): a tree whose nodes hold the
 * elements that end a path there (members) and the subtrees of longer paths
 * (children), both keyed by the element's FieldsV1 key, which is computed
 * once per element. Set operations walk two trees together, and the wire
 * form (FieldsV1) is read and written straight from and to the tree, in
 * upstream's element order so that managedFields read byte for byte alike.
 */
import { compareElements, compareStrings, deserializeElement, FieldsDecodeError, serializeElement, type JsonValue, type Path, type PathElement } from './path-element.js';

export * from './path-element.js';

interface Child {
  readonly element: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of paths. Operations return new sets, which may share subtrees with
 * their operands: insert only into a set you built yourself (or a copy()).
 * No child subtree is ever empty.
 */
export class FieldSet {
  // Most nodes have members only or children only: each map is created on its first entry.
  private ownMembers: ReadonlyMap<string, PathElement> = NO_MEMBERS;
  private ownChildren: ReadonlyMap<string, Child> = NO_CHILDREN;
  /**
   * The canonical FieldsV1 node this set was decoded from, while its entries
   * are not read yet: a decoded set reads a node the first time an operation
   * looks into it, so that a write touching a few paths reads only the nodes
   * on them (the rest is encoded back as it came).
   */
  private pending: FieldsV1 | undefined;
  /** What this set encodes to (see toFieldsV1), and as a subtree that is itself a member ('.' first). */
  private encoding: FieldsV1 | undefined;
  private encodingWithSelf: FieldsV1 | undefined;

  private get members(): ReadonlyMap<string, PathElement> {
    if (this.pending !== undefined) this.readPending();
    return this.ownMembers;
  }

  private get children(): ReadonlyMap<string, Child> {
    if (this.pending !== undefined) this.readPending();
    return this.ownChildren;
  }

  private addMember(k: string, e: PathElement): void {
    if (this.ownMembers === NO_MEMBERS) this.ownMembers = new Map();
    (this.ownMembers as Map<string, PathElement>).set(k, e);
  }

  private addChild(k: string, c: Child): void {
    if (this.ownChildren === NO_CHILDREN) this.ownChildren = new Map();
    (this.ownChildren as Map<string, Child>).set(k, c);
  }

  /** Read the pending node (canonical, checked by checkFieldsV1): its children stay pending. */
  private readPending(): void {
    const node = this.pending!;
    this.pending = undefined;
    for (const key in node) {
      if (key === '.') continue;
      const value = node[key] as FieldsV1;
      const element = key.charCodeAt(0) === 0x66 ? fieldElementOf(key) : deserializeElement(key)!;
      let first: string | undefined;
      for (const k in value) {
        first = k;
        break;
      }
      if (first === undefined) {
        this.addMember(key, element);
        continue;
      }
      const child = new FieldSet();
      child.pending = value;
      if (first === '.') {
        this.addMember(key, element);
        child.encodingWithSelf = value;
      } else child.encoding = value;
      this.addChild(key, { element, set: child });
    }
  }

  /**
   * The set of a FieldsV1 object written in canonical form by this module's
   * own code (see created-fields.ts): read lazily and encoded back as it is,
   * without the checks fromFieldsV1 makes of what comes from outside.
   */
  static fromOwnFieldsV1(fields: FieldsV1): FieldSet {
    const out = new FieldSet();
    out.pending = fields;
    out.encoding = fields;
    return out;
  }

  /** Whether the element of FieldsV1 key `key` ends a path at this node. */
  hasMemberKey(key: string): boolean {
    return this.members.has(key);
  }

  /** The subtree under the element of FieldsV1 key `key`, if any. */
  childByKey(key: string): FieldSet | undefined {
    return this.children.get(key)?.set;
  }

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    const last = path.length - 1;
    for (let i = 0; i < last; i++) node = node.childFor(path[i]!);
    node.insertMember(path[last]!);
  }

  /** Forget the encoding of a set being built (each node on the way down forgets its own). */
  private changed(): void {
    this.encoding = undefined;
    this.encodingWithSelf = undefined;
  }

  /** The subtrees of longer paths, by their first element. */
  *childSets(): Iterable<[PathElement, FieldSet]> {
    for (const c of this.children.values()) yield [c.element, c.set];
  }

  /** The subtree under `e`, created when missing (for building a set: put a path in it). */
  childFor(e: PathElement): FieldSet {
    this.changed();
    const k = serializeElement(e);
    let c = this.children.get(k);
    if (c === undefined) {
      c = { element: e, set: new FieldSet() };
      this.addChild(k, c);
    }
    return c.set;
  }

  /** Add `e` itself as a member (for building a set). */
  insertMember(e: PathElement): void {
    this.changed();
    this.addMember(serializeElement(e), e);
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    const last = path.length - 1;
    for (let i = 0; i < last && node !== undefined; i++) node = node.children.get(serializeElement(path[i]!))?.set;
    return node !== undefined && node.members.has(serializeElement(path[last]!));
  }

  get size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size;
    return n;
  }

  empty(): boolean {
    // A pending node is canonical: it holds an entry besides '.' unless it is empty (no need to read it).
    if (this.pending !== undefined) return isEmptyObject(this.pending);
    // No child is empty, so a set without members and children is the only empty one.
    return this.members.size === 0 && this.children.size === 0;
  }

  /** The paths in either set; this very set when it already holds all of `other`'s (its encoding stays). */
  union(other: FieldSet): FieldSet {
    if (other.empty() || other === this) return this;
    if (this.empty()) return other;
    if (this.covers(other)) return this;
    const out = new FieldSet();
    for (const [k, e] of this.members) out.addMember(k, e);
    for (const [k, e] of other.members) out.addMember(k, e);
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      out.addChild(k, o === undefined ? c : { element: c.element, set: c.set.union(o.set) });
    }
    for (const [k, c] of other.children) if (!out.children.has(k)) out.addChild(k, c);
    return out;
  }

  /** Whether every path of `other` is in this set. */
  covers(other: FieldSet): boolean {
    if (other === this) return true;
    if (other.members.size > this.members.size || other.children.size > this.children.size) return false;
    for (const k of other.members.keys()) if (!this.members.has(k)) return false;
    for (const [k, o] of other.children) {
      const c = this.children.get(k);
      if (c === undefined || !c.set.covers(o.set)) return false;
    }
    return true;
  }

  /** The paths in both sets (this very set when `other` holds all of them). */
  intersection(other: FieldSet): FieldSet {
    if (other === this) return this;
    const out = new FieldSet();
    let same = true;
    for (const [k, e] of this.members) {
      if (other.members.has(k)) out.addMember(k, e);
      else same = false;
    }
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (o === undefined) {
        same = false;
        continue;
      }
      const set = c.set.intersection(o.set);
      if (set !== c.set) same = false;
      if (!set.empty()) out.addChild(k, { element: c.element, set });
    }
    return same ? this : out;
  }

  /**
   * The paths not in `other` (exact paths: a path under one of other's paths
   * stays). This very set when none of its paths is in `other`, so that an
   * unchanged set keeps its encoding.
   */
  difference(other: FieldSet): FieldSet {
    if (other.empty()) return this;
    const out = new FieldSet();
    let same = true;
    for (const [k, e] of this.members) {
      if (!other.members.has(k)) out.addMember(k, e);
      else same = false;
    }
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (o === undefined) out.addChild(k, c);
      else {
        const set = c.set.difference(o.set);
        if (set !== c.set) same = false;
        if (!set.empty()) out.addChild(k, set === c.set ? c : { element: c.element, set });
      }
    }
    return same ? this : out;
  }

  /** The paths neither in `other` nor under one of its paths (this very set when that is all of them). */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.empty()) return this;
    const out = new FieldSet();
    let same = true;
    for (const [k, e] of this.members) {
      if (!other.members.has(k)) out.addMember(k, e);
      else same = false;
    }
    for (const [k, c] of this.children) {
      if (other.members.has(k)) {
        same = false;
        continue;
      }
      const o = other.children.get(k);
      if (o === undefined) out.addChild(k, c);
      else {
        const set = c.set.recursiveDifference(o.set);
        if (set !== c.set) same = false;
        if (!set.empty()) out.addChild(k, set === c.set ? c : { element: c.element, set });
      }
    }
    return same ? this : out;
  }

  /** The paths under `prefix`, with the prefix taken off. */
  withPrefix(prefix: PathElement): FieldSet {
    return this.children.get(serializeElement(prefix))?.set ?? EMPTY;
  }

  /** Whether some path lies strictly under `path`. */
  hasChildrenOf(path: Path): boolean {
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length && node !== undefined; i++) node = node.children.get(serializeElement(path[i]!))?.set;
    return node !== undefined && !node.empty();
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [k, e] of this.members) out.addMember(k, e);
    for (const [k, c] of this.children) out.addChild(k, { element: c.element, set: c.set.copy() });
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this === other) return true;
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const k of this.members.keys()) if (!other.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const o = other.children.get(k);
      if (o === undefined || !c.set.equals(o.set)) return false;
    }
    return true;
  }

  /** Every path, in upstream's iteration order: a node's own members first, then its children in order. */
  list(): Path[] {
    const out: Path[] = [];
    const walk = (node: FieldSet, prefix: PathElement[]): void => {
      for (const e of [...node.members.values()].sort(compareElements)) out.push([...prefix, e]);
      for (const c of [...node.children.values()].sort(byElement)) walk(c.set, [...prefix, c.element]);
    };
    walk(this, []);
    return out;
  }

  /**
   * The FieldsV1 object of this set. Sets are immutable by convention and so
   * is what they encode to: the object is computed once per set, and a set
   * decoded from a canonical FieldsV1 object encodes to that very object.
   */
  toFieldsV1(): FieldsV1 {
    return this.encoded(false);
  }

  /** The FieldsV1 node of this set; with '.' first when the node is itself a member. */
  private encoded(includeSelf: boolean): FieldsV1 {
    if (includeSelf) return (this.encodingWithSelf ??= this.emit(true));
    return (this.encoding ??= this.emit(false));
  }

  private emit(includeSelf: boolean): FieldsV1 {
    const out: FieldsV1 = {};
    if (includeSelf) out['.'] = {};
    const keys: string[] = [];
    const elements: PathElement[] = [];
    for (const [key, c] of this.children) {
      keys.push(key);
      elements.push(c.element);
    }
    for (const [key, element] of this.members) {
      if (this.children.has(key)) continue;
      keys.push(key);
      elements.push(element);
    }
    sortByElement(keys, elements);
    for (const key of keys) {
      const c = this.children.get(key);
      out[key] = c === undefined ? {} : c.set.encoded(this.members.has(key));
    }
    return out;
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const out = new FieldSet();
    const root = fields ?? {};
    // What toFieldsV1 wrote (the common case) is read lazily; anything else at once.
    if (checkFieldsV1(root, true)) {
      out.pending = root as FieldsV1;
      out.encoding = root as FieldsV1;
    } else if (out.read(root, true)) out.encoding = root as FieldsV1;
    return out;
  }

  /**
   * Read one FieldsV1 node into this (empty) set. Returns whether the node is
   * exactly what toFieldsV1 writes for it (keys canonical and in order, '.'
   * only first and only beside children, leaves `{}`).
   */
  private read(node: unknown, root: boolean): boolean {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new FieldsDecodeError('FieldsV1 must be a JSON object');
    let canonical = true;
    let first = true;
    let self = false;
    let previous: PathElement | undefined;
    for (const key in node) {
      const value: unknown = (node as Record<string, unknown>)[key];
      if (key === '.') {
        self = true;
        if (root || !first || !isEmptyObject(value)) canonical = false;
        first = false;
        continue;
      }
      first = false;
      const element = deserializeElement(key);
      if (element === undefined) {
        canonical = false;
        continue;
      }
      const child = new FieldSet();
      const childCanonical = child.read(value, false);
      if (!childCanonical) canonical = false;
      // A node is a member when it says so ('.') or when it is a leaf.
      const leaf = child.empty();
      let member = leaf;
      if (!leaf) for (const k in value as object) if (k === '.') member = true;
      // A field's key is canonical by construction; a key or value may be written differently.
      const k = key.charCodeAt(0) === 0x66 ? key : serializeElement(element);
      if (k !== key || (previous !== undefined && compareElements(previous, element) >= 0) || (leaf && !isEmptyObject(value))) canonical = false;
      previous = element;
      if (member) this.addMember(k, element);
      if (!leaf) {
        this.addChild(k, { element, set: child });
        if (childCanonical) {
          if (member) child.encodingWithSelf = value as FieldsV1;
          else child.encoding = value as FieldsV1;
        }
      }
    }
    if (self && this.empty()) canonical = false;
    return canonical;
  }
}

export type FieldsV1 = { [key: string]: JsonValue };

/**
 * Whether a FieldsV1 node is canonical (what toFieldsV1 writes for the set it
 * holds): the checks of FieldSet.read, in its order and with its errors, but
 * without building anything. Throws FieldsDecodeError where read throws.
 */
function checkFieldsV1(node: unknown, root: boolean): boolean {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new FieldsDecodeError('FieldsV1 must be a JSON object');
  let canonical = true;
  let first = true;
  let self = false;
  let entries = 0;
  let previousField: string | undefined;
  let previous: PathElement | undefined;
  for (const key in node) {
    const value: unknown = (node as Record<string, unknown>)[key];
    if (key === '.') {
      self = true;
      if (root || !first || !isEmptyObject(value)) canonical = false;
      first = false;
      continue;
    }
    first = false;
    if (key.length >= 2 && key.charCodeAt(0) === 0x66 && key.charCodeAt(1) === 0x3a) {
      // A field: its key is canonical by construction; fields come first, by name.
      // (A canonical child is {} or holds an entry: read's "leaf but not {}" cannot happen to it.)
      if (!checkFieldsV1(value, false)) canonical = false;
      if (previous !== undefined || (previousField !== undefined && compareStrings(previousField, key) >= 0)) canonical = false;
      previousField = key;
      entries++;
      continue;
    }
    const element = deserializeElement(key);
    if (element === undefined) {
      canonical = false;
      continue;
    }
    if (!checkFieldsV1(value, false)) canonical = false;
    if (key.charCodeAt(0) !== 0x66 && serializeElement(element) !== key) canonical = false;
    if (previous !== undefined && compareElements(previous, element) >= 0) canonical = false;
    previous = element;
    entries++;
  }
  if (self && entries === 0) canonical = false;
  return canonical;
}

/** Field elements by their FieldsV1 key, shared by every decoded set (bounded, as names come from users). */
const fieldElements = new Map<string, PathElement>();
const MAX_FIELD_ELEMENTS = 20_000;

function fieldElementOf(key: string): PathElement {
  let e = fieldElements.get(key);
  if (e === undefined) {
    if (fieldElements.size >= MAX_FIELD_ELEMENTS) fieldElements.clear();
    e = { field: key.slice(2) };
    fieldElements.set(key, e);
  }
  return e;
}


/** Nodes with at most this many entries are sorted by insertion (see sortByElement). */
const INSERTION_SORT_MAX = 16;

/**
 * Sort `keys` and `elements` (parallel arrays) in upstream's element order,
 * stably. Most nodes hold a handful of entries: an insertion sort of them
 * costs a fraction of Array.prototype.sort with a comparator (about half of
 * the FieldsV1 encoding of a created pod went to that sort); larger nodes
 * (many labels, long lists) take the library sort.
 */
function sortByElement(keys: string[], elements: PathElement[]): void {
  const n = keys.length;
  if (n < 2) return;
  if (n > INSERTION_SORT_MAX) {
    const order = keys.map((_, i) => i).sort((a, b) => compareElements(elements[a]!, elements[b]!));
    const sortedKeys = order.map((i) => keys[i]!);
    const sortedElements = order.map((i) => elements[i]!);
    for (let i = 0; i < n; i++) {
      keys[i] = sortedKeys[i]!;
      elements[i] = sortedElements[i]!;
    }
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    const element = elements[i]!;
    let j = i - 1;
    // Strictly greater moves right: equal elements keep their order (stable, as Array.prototype.sort).
    while (j >= 0 && compareElements(elements[j]!, element) > 0) {
      keys[j + 1] = keys[j]!;
      elements[j + 1] = elements[j]!;
      j--;
    }
    keys[j + 1] = key;
    elements[j + 1] = element;
  }
}

function isEmptyObject(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  for (const _ in v) return false;
  return true;
}

const NO_MEMBERS: ReadonlyMap<string, PathElement> = new Map();
const NO_CHILDREN: ReadonlyMap<string, Child> = new Map();

const byElement = (a: Child, b: Child): number => compareElements(a.element, b.element);

const EMPTY = new FieldSet();
