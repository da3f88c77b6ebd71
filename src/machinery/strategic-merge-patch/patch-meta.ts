/**
 * What strategic merge patch needs to know about a schema: at each position,
 * the patch metadata of a field (its strategies and merge key) and the schema
 * of what the field holds. A patch asks only about fields whose current and
 * patched values are both objects or both lists, so one question per kind of
 * value is enough.
 *
 * Implementations answer from Go struct tags upstream (`patchStrategy`,
 * `patchMergeKey`); k8ts answers from the OpenAPI extensions generated from
 * them (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`).
 */

/** A field's patch metadata. */
export interface PatchMeta {
  /**
   * The strategies, as the tag lists them split on commas: `[]` (none),
   * `['merge']`, `['replace']`, `['retainKeys']`, `['merge', 'retainKeys']`.
   */
  readonly strategies: readonly string[];
  /** The merge key of a list of objects merged by key; '' when there is none. */
  readonly mergeKey: string;
}

export interface PatchMetaLookup<Schema> {
  readonly schema: Schema;
  readonly meta: PatchMeta;
}

/** A position in a schema: an object type (struct), a map, a list's element. */
export interface PatchSchema {
  /**
   * The field `key` of this object, which holds an object or a map: its
   * metadata and its own schema. Throws a StrategicMergePatchError (with
   * upstream's words, e.g. `unable to find api field in struct PodSpec for
   * the json field "foo"`) when this position has no such field.
   */
  lookupObjectField(key: string): PatchMetaLookup<PatchSchema>;
  /** The field `key` of this object, which holds a list: its metadata and the schema of its elements. */
  lookupListField(key: string): PatchMetaLookup<PatchSchema>;
  /** The kind of this position as Go names it (`struct`, `map`, `string`, …), for messages. */
  readonly name: string;
}

export const NO_PATCH_META: PatchMeta = { strategies: [], mergeKey: '' };
