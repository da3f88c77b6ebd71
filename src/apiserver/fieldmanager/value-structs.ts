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

const MAX_DEPTH = 12;

/** One field of a map type that the completion may touch. */
interface FieldPlan {
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
      out ??= { ...value };
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
