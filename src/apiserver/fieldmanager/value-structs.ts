/**
 * Go's typed objects always hold their non-pointer structs (a Deployment's
 * spec, its template and the template's metadata) and their fields without
 * omitempty (the schema's `required`, null when unset), so a field inside
 * one never makes its parent "added". The schemas do not say which structs
 * are values; VALUE_STRUCT names the ones upstream declares by value.
 * What to do with each field of a map type is worked out once per type.
 */
import type { JsonValue } from './path-element.js';
import type { MapType, TypeRef, TypeSchema } from './schema.js';

type JsonObject = { [key: string]: JsonValue };

const VALUE_STRUCT = /\.(ObjectMeta|PodTemplateSpec|DeploymentStrategy|DaemonSetUpdateStrategy|StatefulSetUpdateStrategy|ResourceRequirements|JobTemplateSpec|[A-Za-z]*Spec|[A-Za-z]*Status)$/;

export const MAX_DEPTH = 12;

/** One field of a map type that the completion may touch. */
export interface FieldPlan {
  readonly name: string;
  readonly ref: TypeRef;
  /** A struct held by value: filled in when absent, completed when present. */
  readonly valueStruct: boolean;
  /** Required and not a scalar: null when absent (a nil slice or map). */
  readonly nilWhenAbsent: boolean;
  /** The element type of a list field. */
  readonly listElement: TypeRef | undefined;
}

const plans = new WeakMap<MapType, readonly FieldPlan[]>();
const plansByName = new WeakMap<MapType, ReadonlyMap<string, FieldPlan>>();
/** The fields of a plan that completeLevel fills in when absent (value structs and nil-when-absent fields). */
const fillPlans = new WeakMap<MapType, readonly FieldPlan[]>();

function planOf(schema: TypeSchema, map: MapType): readonly FieldPlan[] {
  let plan = plans.get(map);
  if (plan !== undefined) return plan;
  const fields: FieldPlan[] = [];
  for (const [name, ref] of map.fields) {
    const atom = schema.resolve(ref);
    const valueStruct = ref.named !== undefined && VALUE_STRUCT.test(ref.named) && ref.mapRelationship === undefined && atom.map?.relationship !== 'atomic';
    const nilWhenAbsent = map.required.has(name) && atom.scalar !== true;
    const listElement = atom.list?.element;
    if (valueStruct || nilWhenAbsent || listElement !== undefined) fields.push({ name, ref, valueStruct, nilWhenAbsent, listElement });
  }
  plan = fields;
  plans.set(map, plan);
  plansByName.set(map, new Map(fields.map((f) => [f.name, f])));
  fillPlans.set(map, fields.filter((f) => f.valueStruct || f.nilWhenAbsent));
  return plan;
}

const isObject = (v: JsonValue | undefined): v is JsonObject => v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);

/**
 * `value` with its value structs and required fields filled in as Go's typed
 * object holds them. `value` is not changed: what needs filling in is copied
 * (copy on write), and a subtree that needs nothing is returned as it is.
 */
export function withValueStructs(schema: TypeSchema, value: JsonObject, type: TypeRef, depth = 0): JsonObject {
  if (depth > MAX_DEPTH) return value;
  const map = schema.resolve(type).map;
  if (map === undefined || map.relationship === 'atomic') return value;
  let out: JsonObject | undefined;
  for (const f of planOf(schema, map)) {
    const current = value[f.name];
    let next: JsonValue | undefined = current;
    if (f.valueStruct && current === undefined) next = withValueStructs(schema, {}, f.ref, depth + 1);
    else if (f.valueStruct && isObject(current)) next = withValueStructs(schema, current, f.ref, depth + 1);
    else if (current === undefined && f.nilWhenAbsent) next = null;
    else if (Array.isArray(current) && f.listElement !== undefined) next = completeItems(schema, current, f.listElement, depth + 1);
    if (next !== current) {
      out ??= shallowCopy(value);
      out[f.name] = next as JsonValue;
    }
  }
  return out ?? value;
}

function completeItems(schema: TypeSchema, items: JsonValue[], element: TypeRef, depth: number): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const next = isObject(item) ? withValueStructs(schema, item, element, depth) : item;
    if (next !== item) {
      out ??= items.slice();
      out[i] = next;
    }
  }
  return out ?? items;
}

/**
 * One level of withValueStructs, for a walk that completes values only where
 * it goes: `value` with its absent fields filled in (absent value structs
 * whole), while its present value structs and list items are left as they
 * are, for the walk to complete in turn at the depth fieldScope gives.
 * Completing each level of a value this way gives what withValueStructs
 * gives for the whole of it.
 */
export function completeLevel(schema: TypeSchema, value: JsonObject, type: TypeRef, depth: number): JsonObject {
  if (depth > MAX_DEPTH) return value;
  const map = schema.resolve(type).map;
  if (map === undefined || map.relationship === 'atomic') return value;
  if (!plans.has(map)) planOf(schema, map);
  let out: JsonObject | undefined;
  for (const f of fillPlans.get(map)!) {
    if (value[f.name] !== undefined) continue;
    let next: JsonValue;
    if (f.valueStruct) next = emptyStruct(schema, f.ref, depth + 1);
    else if (f.nilWhenAbsent) next = null;
    else continue;
    out ??= shallowCopy(value);
    out[f.name] = next;
  }
  return out ?? value;
}

/** The plan of field `name` of a (non-atomic) map type: undefined when completion never touches it. */
export function fieldPlan(schema: TypeSchema, map: MapType, name: string): FieldPlan | undefined {
  if (!plans.has(map)) planOf(schema, map);
  return plansByName.get(map)!.get(name);
}

/** The fields completeLevel fills in when absent (value structs, nil-when-absent fields) of a map type. */
export function fillFields(schema: TypeSchema, map: MapType): readonly FieldPlan[] {
  if (!plans.has(map)) planOf(schema, map);
  return fillPlans.get(map)!;
}

/** Where completion goes on below a field of a level completed at `depth`: the depth of its struct and of its list's items (-1: none). */
export interface FieldScope {
  readonly struct: number;
  readonly items: number;
}

export const NO_SCOPE: FieldScope = { struct: -1, items: -1 };
const scopes: FieldScope[][] = [];

export function fieldScope(schema: TypeSchema, type: TypeRef, name: string, depth: number): FieldScope {
  if (depth > MAX_DEPTH) return NO_SCOPE;
  const map = schema.resolve(type).map;
  if (map === undefined || map.relationship === 'atomic') return NO_SCOPE;
  if (!plans.has(map)) planOf(schema, map);
  return planScope(plansByName.get(map)!.get(name), depth);
}

/** fieldScope of a field of a non-atomic map type, from its plan (fieldPlan). */
export function planScope(f: FieldPlan | undefined, depth: number): FieldScope {
  if (f === undefined || depth > MAX_DEPTH) return NO_SCOPE;
  const struct = f.valueStruct ? 1 : 0;
  const items = f.listElement !== undefined ? 1 : 0;
  if (struct === 0 && items === 0) return NO_SCOPE;
  // One object per (kind, depth): walks pass scopes around on every field.
  const kinds = (scopes[depth + 1] ??= []);
  return (kinds[struct * 2 + items] ??= { struct: struct === 1 ? depth + 1 : -1, items: items === 1 ? depth + 1 : -1 });
}

/** A list's items completed as withValueStructs completes a list field's at `depth`. */
export function completeListItems(schema: TypeSchema, items: JsonValue[], element: TypeRef, depth: number): JsonValue[] {
  return completeItems(schema, items, element, depth);
}

/**
 * withValueStructs of an absent struct: the same (frozen) object for a type
 * and depth every time, so that a walk finds both sides' the same at once.
 */
const emptyStructs = new WeakMap<TypeRef, JsonObject[]>();

export function emptyStruct(schema: TypeSchema, ref: TypeRef, depth: number): JsonObject {
  let byDepth = emptyStructs.get(ref);
  if (byDepth === undefined) {
    byDepth = [];
    emptyStructs.set(ref, byDepth);
  }
  return (byDepth[depth] ??= deepFreeze(withValueStructs(schema, {}, ref, depth)));
}

function deepFreeze(o: JsonObject): JsonObject {
  for (const k in o) {
    const v = o[k];
    if (isObject(v)) deepFreeze(v);
  }
  return Object.freeze(o);
}

/**
 * A shallow copy of an object, with its keys in their order (as `{ ...o }`):
 * about ten times cheaper than a spread when a property is added to the copy
 * afterwards, which is what a completion does. Object.assign sets a
 * "__proto__" key (JSON.parse makes it an own property) as the prototype:
 * such an object is copied by a spread, which defines it.
 */
export function shallowCopy(o: JsonObject): JsonObject {
  return Object.hasOwn(o, '__proto__') ? { ...o } : Object.assign({}, o);
}
