/**
 * What the walks look up for each field of a map type, looked up once: its
 * FieldsV1 key, its type, and its completion plan (value-structs.ts). Kept
 * for the fields the schema declares; other names (labels, annotations, any
 * map's entries) come from users and are worked out each time, unkept.
 */
import { fieldKey, type PathElement } from './path-element.js';
import type { MapType, TypeRef, TypeSchema } from './schema.js';
import { fieldPlan, type FieldPlan } from './value-structs.js';

export interface FieldInfo {
  /** The FieldsV1 key: `f:name`. */
  readonly key: string;
  /** The path element: one object per declared field, not one per visit. */
  readonly element: PathElement;
  /** Its type (the map's element type, or a deduced one, for an undeclared name). */
  readonly type: TypeRef;
  /** Its completion plan, undefined when completion never touches it. */
  readonly plan: FieldPlan | undefined;
}

/** The type of a name a map does not declare and has no element type for. */
export const DEDUCED: TypeRef = { named: '__untyped_deduced_' };

const declared = new WeakMap<MapType, Map<string, FieldInfo>>();

export function fieldInfo(schema: TypeSchema, map: MapType, name: string): FieldInfo {
  let byName = declared.get(map);
  if (byName === undefined) {
    byName = new Map();
    for (const [n, type] of map.fields) byName.set(n, { key: fieldKey(n), element: { field: n }, type, plan: fieldPlan(schema, map, n) });
    declared.set(map, byName);
  }
  return byName.get(name) ?? { key: fieldKey(name), element: { field: name }, type: map.element ?? DEDUCED, plan: undefined };
}
