/**
 * A version whose objects differ from the internal form only by the names of
 * top-level fields (events.k8s.io/v1 `note` is the internal `message`). The
 * version's fields are listed in its wire order (upstream's Go struct order),
 * each with its internal name when it differs; encoded objects come out in that
 * order, and fields the list does not name are carried through unchanged.
 *
 * Go writes some fields even when they are empty (a struct without
 * `omitempty`-able zero, a string without `omitempty`): `alwaysWritten` gives
 * them with the value Go writes (`null` for a zero time, `{}`, `""`), so that
 * an encoded object reads as upstream's would. Decoding drops them again (to
 * Go, an empty field and an absent one are the same), so that the empty
 * fields of one version never show up as empty fields of another. Conversions
 * stay lossless: they only ever add such zero values.
 */
import type { GroupVersionKind } from '../scheme.js';
import { withTypeMeta, type InternalObject, type VersionConversion } from './kind-conversion.js';

/** A field of the version: its name, or [its name, the internal name]. */
export type FieldName = string | readonly [versionName: string, internalName: string];

export function renamedFieldsConversion(
  gvk: GroupVersionKind,
  fields: readonly FieldName[],
  alwaysWritten: Readonly<Record<string, null | '' | Record<string, never>>> = {},
): VersionConversion {
  const pairs = fields.map((f): readonly [string, string] => (typeof f === 'string' ? [f, f] : f));
  const toInternalName = new Map(pairs);
  const toVersionName = new Map(pairs.map(([v, i]) => [i, v]));
  // A field the version does not know but whose name the mapping uses on the other side would be ambiguous: dropped.
  const versionNames = new Set(pairs.map(([v]) => v));
  const internalNames = new Set(pairs.map(([, i]) => i));

  return {
    ...gvk,
    toInternal(object) {
      const out: Record<string, unknown> = {};
      for (const [versionName, internalName] of pairs) {
        if (!Object.hasOwn(object, versionName)) continue;
        const value = object[versionName];
        if (Object.hasOwn(alwaysWritten, versionName) && isEmpty(value)) continue;
        out[internalName] = value;
      }
      for (const [key, value] of Object.entries(object)) {
        if (key === 'apiVersion' || key === 'kind' || versionNames.has(key) || internalNames.has(key)) continue;
        out[key] = value;
      }
      return out as InternalObject;
    },
    fromInternal(internal) {
      const out: Record<string, unknown> = {};
      for (const [versionName, internalName] of pairs) {
        if (Object.hasOwn(internal, internalName)) out[versionName] = internal[internalName];
        else if (Object.hasOwn(alwaysWritten, versionName)) out[versionName] = structuredClone(alwaysWritten[versionName]);
      }
      for (const [key, value] of Object.entries(internal)) {
        if (key === 'apiVersion' || key === 'kind' || toVersionName.has(key) || toInternalName.has(key)) continue;
        out[key] = value;
      }
      return withTypeMeta(gvk, out);
    },
  };
}

/** The empty values Go writes for fields it always writes: null, "" and {}. */
function isEmpty(value: unknown): boolean {
  return value === null || value === '' || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);
}
