/**
 * The fields a write records when there was nothing before it (a create: no
 * live object and no entries; the "before-first-apply" entry of a first
 * apply), written straight as the FieldsV1 object in one walk of the new
 * object.
 *
 * The general way (trackUpdate) compares the object with an empty one, both
 * completed with their value structs (see value-structs.ts), builds the
 * added and modified sets, takes the reset and stripped fields out and
 * encodes the rest. Against an empty object that comparison comes down to
 * this: below a value struct, a field that completion fills in (a value
 * struct, a nil-when-absent field) is compared with its filled-in value, and
 * every other field is added whole. This walk follows those rules and writes
 * each node's keys in FieldsV1 order as it goes, with no set, no path stack
 * and no comparison. Where the comparison does something it does not model
 * (a value struct holding something other than an object, completion deeper
 * than MAX_DEPTH) or any error arises, it declines (undefined) and the
 * caller takes the general way, which decides as before.
 */
import { compareElements, FieldSet, serializeElement, type FieldsV1, type JsonValue, type PathElement } from './field-set.js';
import { fieldBefore, fieldTable, type FieldInfo, type FieldTable } from './field-info.js';
import type { ListType, TypeRef, TypeSchema } from './schema.js';
import { deduce, itemScope, listItemElement } from './typed.js';
import { emptyStruct, MAX_DEPTH, NO_SCOPE, planScope, type FieldScope } from './value-structs.js';

type JsonObject = { [key: string]: JsonValue };

/** Thrown (one object, no stack to build) where the walk declines. */
const DECLINE = Object.freeze({ decline: true });

const isMap = (v: JsonValue | undefined): v is JsonObject => v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);
const isList = (v: JsonValue | undefined): v is JsonValue[] => Array.isArray(v);

/**
 * What trackUpdate records for a write of `value` (of `type`) over nothing:
 * (added ∪ modified).recursiveDifference(cut).difference(drop), as a set
 * that encodes to the FieldsV1 written here. Undefined: take the general way.
 */
export function createdFieldSet(schema: TypeSchema, value: JsonObject, type: TypeRef, cut: FieldSet, drop: FieldSet): FieldSet | undefined {
  try {
    const v1 = compared(schema, value, type, 0, cut.empty() ? undefined : cut, drop.empty() ? undefined : drop);
    return FieldSet.fromOwnFieldsV1(v1 ?? {});
  } catch {
    return undefined;
  }
}

/**
 * The entries of a value struct at completion depth `depth` compared with its
 * filled-in empty value: a field completion fills in counts only where it
 * differs from its filled-in value; the node is no member itself.
 * Undefined when nothing is left.
 */
function compared(schema: TypeSchema, r: JsonObject, t: TypeRef, depth: number, cut: FieldSet | undefined, drop: FieldSet | undefined): FieldsV1 | undefined {
  if (depth > MAX_DEPTH) throw DECLINE;
  const map = schema.resolve(t).map;
  if (map === undefined || map.relationship === 'atomic') throw DECLINE;
  const { fields, values } = scratchAt(level++);
  let n = 0;
  let out: FieldsV1 | undefined;
  try {
    n = sortedFields(r, fieldTable(schema, map), false, fields, values);
    for (let i = 0; i < n; i++) {
      const { key, type, plan } = fields[i]!;
      if (cut?.hasMemberKey(key) === true) continue;
      const childCut = cut?.childByKey(key);
      const childDrop = drop?.childByKey(key);
      const member = drop?.hasMemberKey(key) !== true;
      const v = values[i];
      let entry: FieldsV1 | undefined;
      if (plan?.valueStruct === true) {
        // Absent (or undefined): filled in alike on both sides, the same.
        if (v === undefined) continue;
        if (!isMap(v)) throw DECLINE;
        entry = compared(schema, v, plan.ref, depth + 1, childCut, childDrop);
      } else if (plan?.nilWhenAbsent === true) {
        if (v === undefined || v === null) continue;
        entry = nilField(schema, v, plan.ref, planScope(plan, depth), childCut, childDrop, member);
      } else {
        entry = added(schema, v, type, planScope(plan, depth), childCut, childDrop, member);
      }
      if (entry !== undefined) (out ??= {})[key] = entry;
    }
  } finally {
    release(values, n);
  }
  return out;
}

/**
 * A field completion fills in with null (a nil slice or map), set to `v`:
 * a list with items or a map with entries holds added entries and is no
 * member itself; anything else is a leaf that differs from null (modified).
 */
function nilField(
  schema: TypeSchema,
  v: JsonValue,
  t: TypeRef,
  scope: FieldScope,
  cut: FieldSet | undefined,
  drop: FieldSet | undefined,
  member: boolean,
): FieldsV1 | undefined {
  const atom = schema.resolve(t);
  if (atom.scalar === true || (atom.map !== undefined) === (atom.list !== undefined)) throw DECLINE;
  const map = atom.map;
  if (map !== undefined) {
    if (map.relationship !== 'atomic' && isMap(v) && hasKeys(v)) return mapEntries(schema, v, fieldTable(schema, map), NO_SCOPE, cut, drop, false);
  } else {
    const list = atom.list!;
    if (list.relationship !== 'atomic' && isList(v) && v.length > 0) return items(schema, v, list, scope.items, cut, drop, false);
  }
  return member ? {} : undefined;
}

/** A value only the new object has: every path in it added, its own included (`member`, unless dropped). */
function added(
  schema: TypeSchema,
  r: JsonValue | undefined,
  t: TypeRef,
  scope: FieldScope,
  cut: FieldSet | undefined,
  drop: FieldSet | undefined,
  member: boolean,
): FieldsV1 | undefined {
  // A scalar, null or nothing holds no paths whatever its type (deduce may call it a list or a map, but not one with items).
  if (r === null || typeof r !== 'object') return member ? {} : undefined;
  const atom = schema.resolve(t);
  let entry: FieldsV1 | undefined;
  switch (deduce(atom, r)) {
    case 'list': {
      const list = atom.list!;
      if (list.relationship !== 'atomic' && isList(r) && r.length > 0) entry = items(schema, r, list, scope.items, cut, drop, member);
      break;
    }
    case 'map': {
      const map = atom.map!;
      if (map.relationship === 'atomic' || !isMap(r)) break;
      // Completion (as completeLevel) adds the absent value structs and nil fields: they are entries too.
      const complete = scope.struct >= 0 && scope.struct <= MAX_DEPTH;
      const table = fieldTable(schema, map);
      if (hasKeys(r) || (complete && table.fills.length > 0)) entry = mapEntries(schema, r, table, complete ? scope : NO_SCOPE, cut, drop, member);
    }
  }
  return entry ?? (member ? {} : undefined);
}

/**
 * The entries of a map's fields, all added (completed as completeLevel
 * completes a map at scope.struct when that is not -1); with '.' first when
 * the map is a member itself.
 */
function mapEntries(
  schema: TypeSchema,
  r: JsonObject,
  table: FieldTable,
  scope: FieldScope,
  cut: FieldSet | undefined,
  drop: FieldSet | undefined,
  member: boolean,
): FieldsV1 | undefined {
  const depth = scope.struct;
  const { fields, values } = scratchAt(level++);
  let n = 0;
  let out: FieldsV1 | undefined;
  try {
    n = sortedFields(r, table, depth >= 0, fields, values);
    for (let i = 0; i < n; i++) {
      const { key, type, plan } = fields[i]!;
      if (cut?.hasMemberKey(key) === true) continue;
      let v = values[i];
      if (v === undefined && depth >= 0) {
        if (plan?.valueStruct === true) v = emptyStruct(schema, plan.ref, depth + 1);
        else if (plan?.nilWhenAbsent === true) v = null;
      }
      const entry = added(
        schema,
        v,
        type,
        depth >= 0 ? planScope(plan, depth) : NO_SCOPE,
        cut?.childByKey(key),
        drop?.childByKey(key),
        drop?.hasMemberKey(key) !== true,
      );
      if (entry !== undefined) (out ??= member ? ({ '.': {} } as FieldsV1) : {})[key] = entry;
    }
  } finally {
    release(values, n);
  }
  return out;
}

/**
 * The entries of a list's items, all added: an item whose key more than one
 * item has is an entry itself only (the first of them), as lists() records
 * it. In upstream's element order, ties kept in the order the general
 * encoder sees them (entries with children first).
 */
function items(
  schema: TypeSchema,
  r: JsonValue[],
  list: ListType,
  itemsDepth: number,
  cut: FieldSet | undefined,
  drop: FieldSet | undefined,
  member: boolean,
): FieldsV1 | undefined {
  const scope = itemsDepth >= 0 ? itemScope(itemsDepth) : NO_SCOPE;
  const n = r.length;
  if (n === 1) {
    // One item (most lists): no duplicate keys and no order to work out.
    const k = serializeElement(listItemElement(schema, list, r[0]!));
    if (cut?.hasMemberKey(k) === true) return undefined;
    const entry = added(schema, r[0], list.element, scope, cut?.childByKey(k), drop?.childByKey(k), drop?.hasMemberKey(k) !== true);
    if (entry === undefined) return undefined;
    const out: FieldsV1 = member ? { '.': {} } : {};
    out[k] = entry;
    return out;
  }
  const elements: PathElement[] = new Array<PathElement>(n);
  const keys: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const e = listItemElement(schema, list, r[i]!);
    elements[i] = e;
    keys[i] = serializeElement(e);
  }
  let counts: Map<string, number> | undefined;
  if (n > 1) {
    counts = new Map();
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    if (counts.size === n) counts = undefined;
  }
  // Each distinct key once: its entry, and whether it has children (for the order of ties).
  const order: number[] = [];
  const entries: Array<FieldsV1 | undefined> = new Array<FieldsV1 | undefined>(n);
  let done: Set<string> | undefined;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (counts !== undefined) {
      if (done?.has(k) === true) continue;
      (done ??= new Set()).add(k);
    }
    if (cut?.hasMemberKey(k) === true) continue;
    const itemMember = drop?.hasMemberKey(k) !== true;
    const entry =
      counts === undefined || counts.get(k) === 1
        ? added(schema, r[i], list.element, scope, cut?.childByKey(k), drop?.childByKey(k), itemMember)
        : itemMember
          ? {}
          : undefined;
    if (entry === undefined) continue;
    entries[i] = entry;
    order.push(i);
  }
  if (order.length === 0) return undefined;
  sortItems(order, elements, entries);
  const out: FieldsV1 = member ? { '.': {} } : {};
  for (const i of order) out[keys[i]!] = entries[i]!;
  return out;
}

const hasChildren = (e: FieldsV1 | undefined): boolean => e !== undefined && hasKeys(e);

/** Sort item indexes in element order, stably from children-first order (as FieldSet's emit). */
function sortItems(order: number[], elements: readonly PathElement[], entries: ReadonlyArray<FieldsV1 | undefined>): void {
  if (order.length < 2) return;
  const withChildren = order.filter((i) => hasChildren(entries[i]));
  if (withChildren.length !== 0 && withChildren.length !== order.length) {
    const leaves = order.filter((i) => !hasChildren(entries[i]));
    order.length = 0;
    order.push(...withChildren, ...leaves);
  }
  const cmp = (a: number, b: number): number => compareElements(elements[a]!, elements[b]!);
  if (order.length > 16) {
    order.sort(cmp); // stable
    return;
  }
  for (let i = 1; i < order.length; i++) {
    const x = order[i]!;
    let j = i - 1;
    while (j >= 0 && cmp(order[j]!, x) > 0) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = x;
  }
}

/**
 * sortedFields' arrays, a pair for each level of the walk: the walk is
 * synchronous and a level's pair is in use until its map is done, so the
 * pairs are kept from walk to walk rather than grown anew for every map
 * (about a dozen a pod).
 */
interface Scratch {
  readonly fields: FieldInfo[];
  readonly values: Array<JsonValue | undefined>;
}
const scratch: Scratch[] = [];
/** The level the next map of the walk takes; each map gives its level back when done (release). */
let level = 0;

function scratchAt(at: number): Scratch {
  return (scratch[at] ??= { fields: [], values: [] });
}

/** A map is done with its level's pair: no values of the walk stay referenced from it. */
function release(values: Array<JsonValue | undefined>, n: number): void {
  for (let i = 0; i < n; i++) values[i] = undefined;
  level--;
}

/**
 * The fields of `r`'s own keys and, with `fills`, the fields completion fills
 * in that it lacks, in field-name order (Go's string order): by their rank
 * in the schema's order where both are declared, by name otherwise. Written
 * to the first places of `fields` and their values to those of `values`, in
 * the same order (undefined for the filled-in ones); their number returned.
 * The values are read while enumerating the keys (the enumeration's fast
 * path), not looked up by name afterwards (a megamorphic load in the server).
 */
function sortedFields(r: JsonObject, table: FieldTable, fills: boolean, fields: FieldInfo[], values: Array<JsonValue | undefined>): number {
  let n = 0;
  for (const k in r) {
    fields[n] = table.info(k);
    values[n++] = r[k];
  }
  if (fills) {
    for (const f of table.fills) {
      if (Object.hasOwn(r, f.name)) continue;
      fields[n] = f;
      values[n++] = undefined;
    }
  }
  if (n > 16) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (fieldBefore(fields[a]!, fields[b]!) ? -1 : fieldBefore(fields[b]!, fields[a]!) ? 1 : 0));
    const unsortedFields = fields.slice(0, n);
    const unsortedValues = values.slice(0, n);
    for (let i = 0; i < n; i++) {
      fields[i] = unsortedFields[order[i]!]!;
      values[i] = unsortedValues[order[i]!];
    }
    return n;
  }
  for (let i = 1; i < n; i++) {
    const x = fields[i]!;
    const v = values[i];
    let j = i - 1;
    while (j >= 0 && fieldBefore(x, fields[j]!)) {
      fields[j + 1] = fields[j]!;
      values[j + 1] = values[j];
      j--;
    }
    fields[j + 1] = x;
    values[j + 1] = v;
  }
  return n;
}

function hasKeys(m: object): boolean {
  for (const _ in m) return true;
  return false;
}
