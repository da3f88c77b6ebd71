/**
 * Walks over values of a known type (structured-merge-diff's typed package):
 * the set of fields a value sets, the comparison of two values (added,
 * modified, removed fields), the merge of an applied configuration into a
 * live object, and the removal of a set of fields from a value.
 */
import { FieldSet, fieldElement, keyElement, pathString, serializeElement, type JsonValue, type Path, type PathElement } from './field-set.js';
import type { Atom, ListType, MapType, ScalarType, TypeRef, TypeSchema } from './schema.js';
import { completeLevel, completeListItems, NO_SCOPE, planScope, type FieldScope } from './value-structs.js';
import { DEDUCED, fieldInfo } from './field-info.js';

type JsonObject = { [key: string]: JsonValue };

export class TypedError extends Error {}

const isMap = (v: JsonValue | undefined): v is JsonObject => v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);
const isList = (v: JsonValue | undefined): v is JsonValue[] => Array.isArray(v);

/** The part of an atom a value uses (a deduced type can be a scalar, a list or a map). */
export function deduce(atom: Atom, v: JsonValue | undefined): 'scalar' | 'list' | 'map' {
  if (isMap(v) && atom.map !== undefined) return 'map';
  if (isList(v) && atom.list !== undefined) return 'list';
  if (v !== undefined && v !== null && !isMap(v) && !isList(v) && atom.scalar === true) return 'scalar';
  if (atom.map !== undefined) return 'map';
  if (atom.scalar === true) return 'scalar';
  if (atom.list !== undefined) return 'list';
  return 'scalar';
}

export function fieldType(map: MapType, name: string): TypeRef | undefined {
  return map.fields.get(name) ?? map.element;
}

export { DEDUCED };

/** The path element of one item of an associative list: its key fields, or its value for a set. */
export function listItemElement(schema: TypeSchema, list: ListType, item: JsonValue): PathElement {
  if (list.keys.length === 0) {
    if (isMap(item)) throw new TypedError('associative list without keys has an element that\'s a map type');
    return isPrimitive(item) ? remembered(list, item, () => ({ value: item })) : { value: item };
  }
  if (item === null) throw new TypedError('associative list with keys may not have a null element');
  if (!isMap(item)) throw new TypedError('associative list with keys may not have non-map elements');
  if (list.keys.length === 1) {
    const name = list.keys[0]!;
    const v = item[name];
    if (isPrimitive(v)) return remembered(list, v, () => keyElement([[name, v]]));
  }
  const fields: Array<[string, JsonValue]> = [];
  let primitive = true;
  for (const k of list.keys) {
    let v = item[k];
    if (v === undefined) {
      v = schema.keyDefault(list.element, k);
      if (v === undefined) throw new TypedError(`associative list with keys has an element that omits key field "${k}" (and doesn't have default value)`);
    }
    if (!isPrimitive(v)) primitive = false;
    fields.push([k, v]);
  }
  return primitive ? rememberedTuple(list, fields) : keyElement(fields);
}

const isPrimitive = (v: JsonValue | undefined): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * The elements of the items of each list with one key (or of a set), by the
 * item's key value: the same element object, so its FieldsV1 key is
 * computed once. Bounded, as the values come from users.
 */
const itemElements = new WeakMap<ListType, Map<string | number | boolean, PathElement>>();
const MAX_ITEM_ELEMENTS = 10_000;

function remembered(list: ListType, v: string | number | boolean, make: () => PathElement): PathElement {
  let byValue = itemElements.get(list);
  if (byValue === undefined) {
    byValue = new Map();
    itemElements.set(list, byValue);
  }
  let e = byValue.get(v);
  if (e === undefined) {
    if (byValue.size >= MAX_ITEM_ELEMENTS) byValue.clear();
    e = make();
    byValue.set(v, e);
  }
  return e;
}

/**
 * The elements of the items of each list with several keys whose values are
 * all primitive (a container's ports: containerPort and protocol), as
 * remembered() keeps those of one key: by the values in key order, one map
 * level per key. Bounded likewise.
 */
const tupleElements = new WeakMap<ListType, { root: Map<string | number | boolean, unknown>; size: number }>();

function rememberedTuple(list: ListType, fields: Array<[string, JsonValue]>): PathElement {
  let kept = tupleElements.get(list);
  if (kept === undefined || kept.size >= MAX_ITEM_ELEMENTS) {
    kept = { root: new Map(), size: 0 };
    tupleElements.set(list, kept);
  }
  let level = kept.root;
  const last = fields.length - 1;
  for (let i = 0; i < last; i++) {
    const v = fields[i]![1] as string | number | boolean;
    let next = level.get(v) as Map<string | number | boolean, unknown> | undefined;
    if (next === undefined) {
      next = new Map();
      level.set(v, next);
    }
    level = next;
  }
  const v = fields[last]![1] as string | number | boolean;
  let e = level.get(v) as PathElement | undefined;
  if (e === undefined) {
    e = keyElement(fields);
    level.set(v, e);
    kept.size++;
  }
  return e;
}

const sameElement = (a: PathElement, b: PathElement): boolean => serializeElement(a) === serializeElement(b);

export function equalValues(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (isList(a)) return isList(b) && a.length === b.length && a.every((x, i) => equalValues(x, b[i]));
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && equalValues(a[k], b[k]));
  }
  return false;
}

// ---- the set of fields a value sets

export function toFieldSet(schema: TypeSchema, value: JsonValue, type: TypeRef): FieldSet {
  const set = new FieldSet();
  const path: PathElement[] = []; // the current path, a stack the set copies elements from
  const walk = (v: JsonValue, t: TypeRef): void => {
    const atom = schema.resolve(t);
    switch (deduce(atom, v)) {
      case 'scalar':
        set.insert(path);
        return;
      case 'list': {
        const list = atom.list!;
        if (list.relationship === 'atomic') {
          set.insert(path);
          return;
        }
        if (!isList(v)) return;
        const elements = v.map((item) => listItemElement(schema, list, item));
        let duplicates: Set<string> | undefined;
        if (elements.length > 1) {
          const seen = new Set<string>();
          for (const e of elements) {
            const k = serializeElement(e);
            if (seen.has(k) && !duplicates?.has(k)) {
              (duplicates ??= new Set()).add(k);
              path.push(e);
              set.insert(path);
              path.pop();
            }
            seen.add(k);
          }
        }
        for (let i = 0; i < v.length; i++) {
          const e = elements[i]!;
          if (duplicates?.has(serializeElement(e)) === true) continue;
          path.push(e);
          walk(v[i]!, list.element);
          set.insert(path);
          path.pop();
        }
        return;
      }
      case 'map': {
        const map = atom.map!;
        if (map.relationship === 'atomic') {
          set.insert(path);
          return;
        }
        if (!isMap(v)) return;
        for (const k in v) {
          const child = v[k]!;
          path.push(fieldElement(k));
          walk(child, fieldType(map, k) ?? DEDUCED);
          if (child === null || (isMap(child) && !hasKeys(child)) || !map.fields.has(k)) set.insert(path);
          path.pop();
        }
      }
    }
  };
  walk(value, type);
  return set;
}

// ---- comparison

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

export function compare(schema: TypeSchema, lhs: JsonValue, rhs: JsonValue, type: TypeRef): Comparison {
  const c = new Comparer(schema);
  // The whole values are seldom the same: their fields are compared one by one, each skipped when the same.
  c.walk(lhs, rhs, type, false, NO_SCOPE);
  return { added: c.added, modified: c.modified, removed: c.removed };
}

/**
 * compare(withValueStructs(lhs), withValueStructs(rhs)), with the values
 * completed only where the walk goes: a subtree the same on both sides is
 * neither completed nor walked.
 */
export function compareCompleted(schema: TypeSchema, lhs: JsonObject, rhs: JsonObject, type: TypeRef): Comparison {
  const c = new Comparer(schema);
  c.walk(lhs, rhs, type, false, ROOT_SCOPE);
  return { added: c.added, modified: c.modified, removed: c.removed };
}

/** The completion of an object (withValueStructs at depth 0), and of list items at each depth. */
const ROOT_SCOPE: FieldScope = { struct: 0, items: -1 };
const itemScopes: FieldScope[] = [];
export const itemScope = (depth: number): FieldScope => (itemScopes[depth] ??= { struct: depth, items: -1 });

/** One comparison: the walk keeps the current path on a stack, which the sets copy their elements from. */
class Comparer {
  readonly added = new FieldSet();
  readonly modified = new FieldSet();
  readonly removed = new FieldSet();
  private readonly path: PathElement[] = [];

  constructor(private readonly schema: TypeSchema) {}

  /**
   * Compare the values at the current path. `scope`: how the values are to
   * be completed (value structs, see completeLevel) before they are
   * compared: a map as a struct at scope.struct, a list's items at scope.items.
   */
  walk(l: JsonValue | undefined, r: JsonValue | undefined, t: TypeRef, skipSame: boolean, scope: FieldScope): void {
    if (skipSame && l !== undefined && r !== undefined && sameJson(l, r)) {
      // Nothing changed below (nor would completing both sides change anything): only the checks the walk would make of list items remain.
      checkItems(this.schema, l, t);
      return;
    }
    if (l === undefined) {
      this.addedWalk(r, t, scope);
      return;
    }
    if (scope.struct >= 0) {
      if (isMap(l)) l = completeLevel(this.schema, l, t, scope.struct);
      if (isMap(r)) r = completeLevel(this.schema, r, t, scope.struct);
    }
    const atom = this.schema.resolve(t);
    const kl = deduce(atom, l);
    const kr = deduce(atom, r);
    let inLeaf: boolean;
    if (r === undefined) inLeaf = this.node(atom, t, scope, kl, l, undefined);
    else if (l === undefined || kl === kr) inLeaf = this.node(atom, t, scope, kr, l, r);
    else {
      // A value that changed its kind: the old one goes, the new one comes.
      this.node(atom, t, scope, kl, l, undefined);
      inLeaf = this.node(atom, t, scope, kr, undefined, r);
    }
    if (!inLeaf) {
      if (l === undefined) this.added.insert(this.path);
      else if (r === undefined) this.removed.insert(this.path);
    }
  }

  /**
   * walk() of a value only the right side has (most of a create): every
   * path in it is added, the value's own last. The same walk without what
   * tells two sides apart, putting the paths straight into the nodes of the
   * added set rather than inserting each from the root.
   */
  private addedWalk(r: JsonValue | undefined, t: TypeRef, scope: FieldScope): void {
    const path = this.path;
    if (path.length === 0) {
      this.addedUnder(undefined, undefined, r, t, scope);
      return;
    }
    let parent = this.added;
    for (let i = 0; i < path.length - 1; i++) parent = parent.childFor(path[i]!);
    this.addedUnder(parent, path[path.length - 1]!, r, t, scope);
  }

  /** The paths of `r`, at element `e` of the added set's node `parent` (undefined: the root itself). */
  private addedUnder(parent: FieldSet | undefined, e: PathElement | undefined, r: JsonValue | undefined, t: TypeRef, scope: FieldScope): void {
    const schema = this.schema;
    if (scope.struct >= 0 && isMap(r)) r = completeLevel(schema, r, t, scope.struct);
    const atom = schema.resolve(t);
    switch (deduce(atom, r)) {
      case 'list': {
        const list = atom.list!;
        if (list.relationship !== 'atomic' && isList(r) && r.length > 0) this.addedItems(parent === undefined ? this.added : parent.childFor(e!), list, r, scope.items);
        break;
      }
      case 'map': {
        const map = atom.map!;
        if (map.relationship !== 'atomic' && isMap(r) && hasKeys(r)) {
          // A map with keys adds a path for each: the node below `e` is never left empty.
          const node = parent === undefined ? this.added : parent.childFor(e!);
          const depth = scope.struct;
          for (const k in r) {
            const info = fieldInfo(schema, map, k);
            this.addedUnder(node, info.element, r[k], info.type, depth >= 0 ? planScope(info.plan, depth) : NO_SCOPE);
          }
        }
      }
    }
    parent?.insertMember(e!);
  }

  /** lists() of items only the right side has, into `node` (the list's): each item's paths added, items with a key seen twice as themselves only. */
  private addedItems(node: FieldSet, list: ListType, r: JsonValue[], itemsDepth: number): void {
    const schema = this.schema;
    const scope = itemsDepth >= 0 ? itemScope(itemsDepth) : NO_SCOPE;
    const elements = r.map((item) => listItemElement(schema, list, item));
    let counts: Map<string, number> | undefined;
    if (r.length > 1) {
      counts = new Map();
      for (const e of elements) {
        const k = serializeElement(e);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      if (counts.size === r.length) counts = undefined;
    }
    if (counts === undefined) {
      for (let i = 0; i < r.length; i++) this.addedUnder(node, elements[i]!, r[i], list.element, scope);
      return;
    }
    const done = new Set<string>();
    for (let i = 0; i < r.length; i++) {
      const k = serializeElement(elements[i]!);
      if (done.has(k)) continue;
      done.add(k);
      if (counts.get(k) === 1) this.addedUnder(node, elements[i]!, r[i], list.element, scope);
      else node.insertMember(elements[i]!);
    }
  }

  /** Compare one node as `kind`; true when it was compared as a leaf. */
  private node(atom: Atom, t: TypeRef, scope: FieldScope, kind: 'scalar' | 'list' | 'map', lv: JsonValue | undefined, rv: JsonValue | undefined): boolean {
    if (kind === 'scalar') {
      this.leaf(lv, rv);
      return true;
    }
    if (kind === 'list') {
      const list = atom.list!;
      const ll = isList(lv) ? lv : undefined;
      const rl = isList(rv) ? rv : undefined;
      if (list.relationship === 'atomic' || ((ll === undefined || ll.length === 0) && (rl === undefined || rl.length === 0))) {
        if (scope.items >= 0 && ll !== undefined && rl !== undefined) this.leafItems(list, ll, rl, scope.items);
        else this.leaf(lv, rv);
        return true;
      }
      this.lists(list, ll ?? [], rl ?? [], scope.items);
      return false;
    }
    const map = atom.map!;
    const lm = isMap(lv) ? lv : undefined;
    const rm = isMap(rv) ? rv : undefined;
    if (map.relationship === 'atomic' || (!hasKeys(lm) && !hasKeys(rm))) {
      this.leaf(lv, rv);
      return true;
    }
    const path = this.path;
    const depth = scope.struct;
    // (fieldInfo gives fieldType(map, k) ?? DEDUCED, and fieldScope's plan of k in this non-atomic map.)
    if (lm !== undefined) {
      for (const k in lm) {
        const info = fieldInfo(this.schema, map, k);
        path.push(info.element);
        const fieldScopeOf = depth >= 0 ? planScope(info.plan, depth) : NO_SCOPE;
        this.walk(lm[k], rm !== undefined && Object.hasOwn(rm, k) ? rm[k] : undefined, info.type, true, fieldScopeOf);
        path.pop();
      }
    }
    if (rm !== undefined) {
      for (const k in rm) {
        if (lm !== undefined && Object.hasOwn(lm, k)) continue;
        const info = fieldInfo(this.schema, map, k);
        path.push(info.element);
        const fieldScopeOf = depth >= 0 ? planScope(info.plan, depth) : NO_SCOPE;
        this.walk(undefined, rm[k], info.type, true, fieldScopeOf);
        path.pop();
      }
    }
    return false;
  }

  private leaf(l: JsonValue | undefined, r: JsonValue | undefined): void {
    if (l === undefined) this.added.insert(this.path);
    else if (r === undefined) this.removed.insert(this.path);
    else if (!equalValues(l, r)) this.modified.insert(this.path);
  }

  /** A leaf of two lists whose items are completed at `depth` (the same lists stay the same once completed). */
  private leafItems(list: ListType, l: JsonValue[], r: JsonValue[], depth: number): void {
    if (!this.sameItems(list, l, r, depth)) this.modified.insert(this.path);
  }

  /** Whether two runs of items are equal once completed at `depth` (-1: as they are). */
  private sameItems(list: ListType, l: JsonValue[], r: JsonValue[], depth: number): boolean {
    if (sameJson(l, r)) return true;
    if (depth < 0) return false;
    return sameJson(completeListItems(this.schema, l, list.element, depth), completeListItems(this.schema, r, list.element, depth));
  }

  /** `itemsDepth`: the depth the items are completed at (-1: not at all). */
  private lists(list: ListType, l: JsonValue[], r: JsonValue[], itemsDepth: number): void {
    const schema = this.schema;
    const scope = itemsDepth >= 0 ? itemScope(itemsDepth) : NO_SCOPE;
    const order: Array<{ key: string; element: PathElement }> = [];
    const lValues = new Map<string, JsonValue[]>();
    const rValues = new Map<string, JsonValue[]>();
    for (const item of l) {
      const element = listItemElement(schema, list, item);
      const key = serializeElement(element);
      const seen = lValues.get(key);
      if (seen === undefined) {
        lValues.set(key, [item]);
        order.push({ key, element });
      } else seen.push(item);
    }
    for (const item of r) {
      const element = listItemElement(schema, list, item);
      const key = serializeElement(element);
      const seen = rValues.get(key);
      if (seen === undefined) {
        rValues.set(key, [item]);
        if (!lValues.has(key)) order.push({ key, element });
      } else seen.push(item);
    }
    const path = this.path;
    for (const { key, element } of order) {
      const ls = lValues.get(key) ?? [];
      const rs = rValues.get(key) ?? [];
      path.push(element);
      if (ls.length <= 1 && rs.length <= 1) this.walk(ls[0], rs[0], list.element, true, scope);
      else if (ls.length >= 2 && rs.length >= 2) {
        if (!this.sameItems(list, ls, rs, itemsDepth)) this.modified.insert(path);
      } else if (ls.length >= 2) {
        if (rs.length !== 0) this.walk(undefined, rs[0], list.element, true, scope);
        this.removed.insert(path);
      } else {
        if (ls.length !== 0) this.walk(ls[0], undefined, list.element, true, scope);
        this.added.insert(path);
      }
      path.pop();
    }
  }
}

/**
 * Whether two JSON values are the same (own keys, in any order, and values):
 * a value the same on both sides adds, modifies and removes nothing.
 */
export function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(b, k) || !sameJson(a[k]!, b[k]!)) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

/**
 * What a comparison of a value with itself still does (it finds no change):
 * the path elements of the items of the associative lists it walks into,
 * which throw a TypedError for an invalid item, in the comparison's order.
 */
function checkItems(schema: TypeSchema, v: JsonValue, t: TypeRef): void {
  const atom = schema.resolve(t);
  if (!mayHoldItems(schema, atom)) return;
  switch (deduce(atom, v)) {
    case 'scalar':
      return;
    case 'list': {
      const list = atom.list!;
      if (list.relationship === 'atomic' || !isList(v) || v.length === 0) return;
      if (v.length === 1) {
        listItemElement(schema, list, v[0]!);
        checkItems(schema, v[0]!, list.element);
        return;
      }
      // As lists(): every item's element first (the left side's, then the same again on the right), then the items with a unique key.
      const counts = new Map<string, number>();
      const keys: string[] = [];
      for (const item of v) {
        const k = serializeElement(listItemElement(schema, list, item));
        keys.push(k);
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      for (let i = 0; i < v.length; i++) if (counts.get(keys[i]!) === 1) checkItems(schema, v[i]!, list.element);
      return;
    }
    case 'map': {
      const map = atom.map!;
      if (map.relationship === 'atomic' || !isMap(v)) return;
      const plan = checkPlanOf(schema, map);
      for (const k in v) {
        const field = plan.fields.get(k);
        if (field !== undefined) checkItems(schema, v[k]!, field);
        else if (plan.element !== undefined && !map.fields.has(k)) checkItems(schema, v[k]!, plan.element);
      }
    }
  }
}

/** The fields of a map type whose values may need a check, and its element type when its entries may. */
interface CheckPlan {
  readonly fields: ReadonlyMap<string, TypeRef>;
  readonly element: TypeRef | undefined;
}

const checkPlans = new WeakMap<MapType, CheckPlan>();

function checkPlanOf(schema: TypeSchema, map: MapType): CheckPlan {
  let plan = checkPlans.get(map);
  if (plan === undefined) {
    const fields = new Map<string, TypeRef>();
    for (const [name, ref] of map.fields) if (mayHoldItems(schema, schema.resolve(ref))) fields.set(name, ref);
    const element = map.element !== undefined && mayHoldItems(schema, schema.resolve(map.element)) ? map.element : undefined;
    plan = { fields, element };
    checkPlans.set(map, plan);
  }
  return plan;
}

/**
 * Whether a value of this type can hold an associative list the comparison
 * walks into (through non-atomic maps): most types cannot, and their values
 * need no check. Worked out once per type, by a search over the types it reaches.
 */
const holdsItems = new WeakMap<Atom, boolean>();

function mayHoldItems(schema: TypeSchema, atom: Atom): boolean {
  const known = holdsItems.get(atom);
  if (known !== undefined) return known;
  const seen = new Set<Atom>();
  const reaches = (a: Atom): boolean => {
    const k = holdsItems.get(a);
    if (k !== undefined) return k;
    if (seen.has(a)) return false;
    seen.add(a);
    if (a.list !== undefined && a.list.relationship !== 'atomic') return true;
    const map = a.map;
    if (map === undefined || map.relationship === 'atomic') return false;
    for (const ref of map.fields.values()) if (reaches(schema.resolve(ref))) return true;
    return map.element !== undefined && reaches(schema.resolve(map.element));
  };
  const result = reaches(atom);
  holdsItems.set(atom, result);
  return result;
}

function hasKeys(m: JsonObject | undefined): boolean {
  if (m === undefined) return false;
  for (const _ in m) return true;
  return false;
}

// ---- merge of an applied configuration (rhs) into a live object (lhs)

export function merge(schema: TypeSchema, lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: TypeRef): JsonValue | undefined {
  const atom = schema.resolve(type);
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const kind = deduce(atom, rhs);
  if (kind !== deduce(atom, lhs) || kind === 'scalar') return rhs;
  if (kind === 'list') {
    const list = atom.list!;
    const l = lhs as JsonValue[];
    const r = rhs as JsonValue[];
    if (list.relationship === 'atomic' || (l.length === 0 && r.length === 0)) return rhs;
    return mergeLists(schema, list, l, r);
  }
  const map = atom.map!;
  const l = lhs as JsonObject;
  const r = rhs as JsonObject;
  if (map.relationship === 'atomic' || (Object.keys(l).length === 0 && Object.keys(r).length === 0)) return rhs;
  const out: JsonObject = {};
  for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
    const v = merge(schema, l[k], r[k], fieldType(map, k) ?? DEDUCED);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * Upstream's merged order: the live items in their order, with the applied
 * items woven in so that the items both lists share keep the applied order
 * and items new to the live list follow the applied item before them.
 */
function mergeLists(schema: TypeSchema, list: ListType, l: JsonValue[], r: JsonValue[]): JsonValue[] {
  const rPEs = r.map((item) => listItemElement(schema, list, item));
  const lPEs = l.map((item) => listItemElement(schema, list, item));
  const rByKey = new Map<string, JsonValue>();
  rPEs.forEach((e, i) => {
    const k = serializeElement(e);
    if (rByKey.has(k)) throw new TypedError(`duplicate entries for key ${pathString([e])}`);
    rByKey.set(k, r[i]!);
  });
  const lByKey = new Map<string, JsonValue | undefined>();
  lPEs.forEach((e, i) => {
    const k = serializeElement(e);
    lByKey.set(k, lByKey.has(k) ? undefined : l[i]!);
  });
  const shared = rPEs.filter((e) => lByKey.has(serializeElement(e)));
  let nextShared: PathElement | undefined = shared.shift();
  const merged = new Set<string>();
  const out: JsonValue[] = [];
  const emit = (lv: JsonValue | undefined, rv: JsonValue | undefined): void => {
    const v = merge(schema, lv, rv, list.element);
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lPEs.length || ri < rPEs.length) {
    if (li < lPEs.length && ri < rPEs.length) {
      const pe = lPEs[li]!;
      if (sameElement(pe, rPEs[ri]!)) {
        const k = serializeElement(pe);
        merged.add(k);
        emit(lByKey.get(k), rByKey.get(k));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (rByKey.has(serializeElement(pe)) && nextShared !== undefined && !sameElement(nextShared, pe)) {
        li++;
        continue;
      }
    }
    if (li < lPEs.length) {
      const pe = lPEs[li]!;
      const k = serializeElement(pe);
      if (!rByKey.has(k)) {
        emit(l[li], undefined);
        li++;
        continue;
      } else if (merged.has(k)) {
        li++;
      }
    }
    if (ri < rPEs.length) {
      const pe = rPEs[ri]!;
      const k = serializeElement(pe);
      merged.add(k);
      emit(lByKey.get(k), rByKey.get(k));
      ri++;
      if (nextShared !== undefined && sameElement(nextShared, pe)) nextShared = shared.shift();
    }
  }
  return out;
}

// ---- removal of a set of fields

/** The value without the fields of `set` (a container left empty by the removal goes too). */
export function removeItems(schema: TypeSchema, value: JsonValue, set: FieldSet, type: TypeRef): JsonValue | undefined {
  const atom = schema.resolve(type);
  const kind = deduce(atom, value);
  if (kind === 'scalar') return value;
  if (kind === 'list') {
    const list = atom.list!;
    if (!isList(value) || value.length === 0 || list.relationship === 'atomic') return value;
    const out: JsonValue[] = [];
    for (const item of value) {
      const e = listItemElement(schema, list, item);
      if (set.has([e])) continue;
      const sub = set.withPrefix(e);
      const v = sub.empty() ? item : removeItems(schema, item, sub, list.element);
      if (v !== undefined) out.push(v);
    }
    return out.length > 0 ? out : undefined;
  }
  const map = atom.map!;
  if (!isMap(value) || Object.keys(value).length === 0 || map.relationship === 'atomic') return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const e = fieldElement(k);
    if (set.has([e])) continue;
    const sub = set.withPrefix(e);
    const kept = sub.empty() ? v : removeItems(schema, v, sub, fieldType(map, k) ?? DEDUCED);
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The set with every struct field that has owned children made a member
 * itself (upstream's EnsureNamedFieldsAreMembers), so that pruning removes a
 * struct whose fields are all gone.
 */
export function ensureNamedFieldsAreMembers(schema: TypeSchema, set: FieldSet, type: TypeRef): FieldSet {
  const out = set.copy();
  // Walk the tree with the types: only elements with children can be such a struct.
  const walk = (node: FieldSet, target: FieldSet, t: TypeRef): void => {
    for (const [e, child] of node.childSets()) {
      const atom = schema.resolve(t);
      let next: TypeRef | undefined;
      if ('field' in e) {
        if (atom.map === undefined) continue;
        if (atom.map.fields.has(e.field)) target.insertMember(e);
        next = fieldType(atom.map, e.field);
      } else {
        next = atom.list?.element;
      }
      if (next !== undefined) walk(child, target.childFor(e), next);
    }
  };
  walk(set, out, type);
  return out;
}

// ---- the checks of an applied configuration

/** A JSON value as Go's %v prints what encoding/json decoded (int64 for integers, map[...] for objects). */
function goValue(v: JsonValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k] as JsonValue)}`).join(' ')}]`;
  return String(v);
}

/** The same value as Go's %#v prints it inside an interface{}. */
function goSyntax(v: JsonValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'interface {}(nil)';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (typeof v === 'object') return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${goSyntax(v[k] as JsonValue)}`).join(', ')}}`;
  return String(v);
}

const goTypeName = (v: JsonValue): string =>
  typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? (Number.isInteger(v) ? 'int64' : 'float64') : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';

/** structured-merge-diff's validateScalar: what a typed scalar says of a value of another type (null passes). */
function scalarTypeError(type: ScalarType, v: JsonValue): string | undefined {
  if (v === null) return undefined;
  switch (type) {
    case 'string':
      return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goSyntax(v)}}`;
    case 'numeric':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goTypeName(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got &{${goValue(v)}}`;
  }
}

/**
 * Throws what upstream's typed conversion of an apply configuration reports:
 * fields the schema does not declare, list items without their keys, and
 * duplicate keys (`.spec.foo: field not declared in schema`).
 */
export function validateConfiguration(schema: TypeSchema, value: JsonValue, type: TypeRef): void {
  const errors: string[] = [];
  const walk = (v: JsonValue, t: TypeRef, path: Path): void => {
    const atom = schema.resolve(t);
    const kind = deduce(atom, v);
    if (kind === 'list' && isList(v)) {
      const list = atom.list!;
      if (list.relationship === 'atomic') return;
      const seen = new Set<string>();
      v.forEach((item, i) => {
        let e: PathElement;
        try {
          e = listItemElement(schema, list, item);
        } catch (err: unknown) {
          errors.push(`${pathString(path)}: element ${i}: ${err instanceof Error ? err.message : String(err)}`);
          return;
        }
        const k = serializeElement(e);
        if (seen.has(k)) errors.push(`${pathString(path)}: duplicate entries for key ${pathString([e])}`);
        seen.add(k);
        walk(item, list.element, [...path, e]);
      });
    } else if (kind === 'map' && isMap(v)) {
      const map = atom.map!;
      for (const [k, child] of Object.entries(v)) {
        const p = [...path, fieldElement(k)];
        const ft = fieldType(map, k);
        if (ft === undefined) errors.push(`${pathString(p)}: field not declared in schema`);
        else walk(child, ft, p);
      }
    } else if (kind === 'scalar' && atom.scalarType !== undefined) {
      const wrong = scalarTypeError(atom.scalarType, v);
      if (wrong !== undefined) errors.push(`${pathString(path)}: ${wrong}`);
    }
  };
  walk(value, type, []);
  if (errors.length === 1) throw new TypedError(errors[0]);
  if (errors.length > 1) throw new TypedError(['errors:', ...errors.map((e) => `  ${e}`)].join('\n'));
}
