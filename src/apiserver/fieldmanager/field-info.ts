/**
 * What the walks look up for each field of a map type, looked up once: its
 * FieldsV1 key, its type, its completion plan (value-structs.ts) and its
 * place in field-name order. Kept in one table per map type, for the fields
 * the schema declares and, up to a bound, for the other names seen (labels,
 * annotations, any map's entries: they come from users, but the same ones
 * come back object after object).
 */
import { compareStrings, fieldKey, type PathElement } from './path-element.js';
import type { MapType, TypeRef, TypeSchema } from './schema.js';
import { fieldPlan, fillFields, type FieldPlan } from './value-structs.js';

export interface FieldInfo {
  readonly name: string;
  /** The FieldsV1 key: `f:name`. */
  readonly key: string;
  /** The path element: one object per field, not one per visit. */
  readonly element: PathElement;
  /** Its type (the map's element type, or a deduced one, for an undeclared name). */
  readonly type: TypeRef;
  /** Its completion plan, undefined when completion never touches it. */
  readonly plan: FieldPlan | undefined;
  /** Its index among the declared names in Go's string order; -1 for an undeclared name. */
  readonly rank: number;
}

/** The type of a name a map does not declare and has no element type for. */
export const DEDUCED: TypeRef = { named: '__untyped_deduced_' };

/** Undeclared names kept per map type; past this, the kept ones are dropped. */
const MAX_OTHER_NAMES = 1000;

export class FieldTable {
  /** The declared fields completion fills in when absent (fillFields), as infos. */
  readonly fills: readonly FieldInfo[];
  /** The declared fields, then the other names seen: one lookup either way. */
  private readonly byName = new Map<string, FieldInfo>();
  private readonly declared: number;
  private readonly otherType: TypeRef;

  constructor(schema: TypeSchema, map: MapType) {
    const names = [...map.fields.keys()].sort(compareStrings);
    for (let rank = 0; rank < names.length; rank++) {
      const name = names[rank]!;
      this.byName.set(name, { name, key: fieldKey(name), element: { field: name }, type: map.fields.get(name)!, plan: fieldPlan(schema, map, name), rank });
    }
    this.declared = names.length;
    this.fills = fillFields(schema, map).map((f) => this.byName.get(f.name)!);
    this.otherType = map.element ?? DEDUCED;
  }

  info(name: string): FieldInfo {
    let info = this.byName.get(name);
    if (info === undefined) {
      if (this.byName.size >= this.declared + MAX_OTHER_NAMES) this.dropOthers();
      info = { name, key: fieldKey(name), element: { field: name }, type: this.otherType, plan: undefined, rank: -1 };
      this.byName.set(name, info);
    }
    return info;
  }

  /** Forget the other names (the declared ones come first in the map's order). */
  private dropOthers(): void {
    let i = 0;
    for (const name of this.byName.keys()) if (i++ >= this.declared) this.byName.delete(name);
  }
}

const tables = new WeakMap<MapType, FieldTable>();

/** The table of a map type's fields (one per map type). */
export function fieldTable(schema: TypeSchema, map: MapType): FieldTable {
  let table = tables.get(map);
  if (table === undefined) {
    table = new FieldTable(schema, map);
    tables.set(map, table);
  }
  return table;
}

export function fieldInfo(schema: TypeSchema, map: MapType, name: string): FieldInfo {
  return fieldTable(schema, map).info(name);
}

/** Whether `a` comes before `b` in field-name order (Go's string order), by rank when both are declared. */
export function fieldBefore(a: FieldInfo, b: FieldInfo): boolean {
  return a.rank >= 0 && b.rank >= 0 ? a.rank < b.rank : compareStrings(a.name, b.name) < 0;
}
