/**
 * Strategic merge patch (application/strategic-merge-patch+json), applied as
 * upstream's API server applies it (apimachinery's strategicpatch with
 * MergeParallelList and IgnoreUnmatchedNulls):
 *
 * - objects merge key by key; `null` deletes a key;
 * - a list whose field has the `merge` strategy merges: objects by the
 *   field's merge key (a new key is added, a known one merged), primitives
 *   as a set; any other list is replaced, as is a value of another type;
 * - directives: `$patch: replace|delete` in an object (the object replaces,
 *   or is removed), `$patch: delete|replace` as an element of a merged list
 *   (remove the elements with that key; replace the whole list),
 *   `$setElementOrder/<list>` (the order of the merged list),
 *   `$deleteFromPrimitiveList/<list>` (remove primitives), `$retainKeys`
 *   (clear the keys not named; a field with the `retainKeys` strategy);
 * - order: `$setElementOrder` first, then the order of the patch's items, then
 *   the current list's order for the items the patch does not name.
 *
 * @example
 *   strategicMergePatch(
 *     { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } },
 *     { spec: { containers: [{ name: 'b', image: 'z' }] } },
 *     podSchema,
 *   ) // → { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'z' }] } }
 */
import {
  badArgType,
  badPatchFormatForPrimitiveList,
  badPatchFormatForRetainKeys,
  badPatchFormatForSetElementOrderList,
  badPatchType,
  noListOfLists,
  noMergeKey,
  StrategicMergePatchError,
} from './errors.js';
import { GO_MAP, GO_SLICE, goEqual, goFormat, goKey, goKind, isJsonMap, type GoKind, type JsonMap } from './go-values.js';
import type { PatchSchema } from './patch-meta.js';
import { deepCopy } from '../meta.js';

const DIRECTIVE = '$patch';
const DELETE = 'delete';
const REPLACE = 'replace';
const MERGE = 'merge';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Apply `patch` to `original`; neither is changed. Throws StrategicMergePatchError. */
export function strategicMergePatch(original: JsonMap, patch: JsonMap, schema: PatchSchema): JsonMap {
  return strategicMergePatchInPlace(deepCopy(original), deepCopy(patch), schema);
}

/**
 * Apply `patch` to `original`, consuming both as upstream does: the result
 * shares their parts, and `patch` is left with its directives removed (the
 * API server prints what is left of it in some errors).
 */
export function strategicMergePatchInPlace(original: JsonMap, patch: JsonMap, schema: PatchSchema): JsonMap {
  return mergeMap(original, patch, schema);
}

function mergeMap(original: JsonMap | undefined, patch: JsonMap, schema: PatchSchema): JsonMap {
  if (Object.hasOwn(patch, DIRECTIVE)) return objectDirective(patch[DIRECTIVE], patch);
  const result = original ?? {};
  applyRetainKeys(result, patch);
  applySetElementOrder(result, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey];
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = listKeyOf(patchKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete result[key];
      continue;
    }
    if (!Object.hasOwn(result, key) || goKind(result[key]) !== goKind(patchValue)) {
      // A new value, or one of another type: the patch's value, without nulls and directives.
      if (!isDeleteList) setPatchValue(result, key, patchValue);
      continue;
    }
    const current = result[key];
    if (isJsonMap(current)) {
      const { schema: fieldSchema, meta } = schema.lookupObjectField(key);
      const strategy = splitRetainKeys(meta.strategies).strategy;
      setOwn(result, key, strategy === REPLACE ? patchValue : mergeMap(current, patchValue as JsonMap, fieldSchema));
    } else if (Array.isArray(current)) {
      const { schema: elementSchema, meta } = schema.lookupListField(key);
      const strategy = splitRetainKeys(meta.strategies).strategy;
      setOwn(result, key, mergeListField(current, patchValue as unknown[], elementSchema, strategy, meta.mergeKey, isDeleteList).merged);
    } else {
      setPatchValue(result, key, patchValue);
    }
  }
  return result;
}

/** Set an own property, whatever its name (`__proto__` included). */
function setOwn(target: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `$patch` in an object: replace it by the rest of the patch, or delete it. */
function objectDirective(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  throw badPatchType(directive, patch);
}

/** A value taken whole from the patch: its nulls dropped, its directives (and what holds them) removed. */
function setPatchValue(target: JsonMap, key: string, patchValue: unknown): void {
  discardNulls(patchValue);
  const { value, keep } = removeDirectives(patchValue);
  if (keep) setOwn(target, key, value);
  else delete target[key];
}

function discardNulls(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) discardNulls(item);
  } else if (isJsonMap(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else discardNulls(v);
    }
  }
}

/** Drop every object that carries `$patch` (and the field or element holding it). */
function removeDirectives(value: unknown): { value: unknown; keep: boolean } {
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const item of value) {
      const r = removeDirectives(item);
      if (r.keep) kept.push(r.value);
    }
    return { value: kept, keep: true };
  }
  if (isJsonMap(value)) {
    if (Object.hasOwn(value, DIRECTIVE)) return { value: undefined, keep: false };
    for (const [k, v] of Object.entries(value)) {
      const r = removeDirectives(v);
      if (r.keep) setOwn(value, k, r.value);
      else delete value[k];
    }
  }
  return { value, keep: true };
}

/** `$deleteFromPrimitiveList/finalizers` → `finalizers`. */
function listKeyOf(directiveKey: string, prefix: string): string {
  const slash = directiveKey.indexOf('/');
  if (slash < 0 || directiveKey.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST ? badPatchFormatForPrimitiveList() : badPatchFormatForSetElementOrderList();
  }
  return directiveKey.slice(slash + 1);
}

/** A field's strategies: whether they include retainKeys, and the other one. */
function splitRetainKeys(strategies: readonly string[]): { retainKeys: boolean; strategy: string } {
  if (strategies.length === 0) return { retainKeys: false, strategy: '' };
  if (strategies.length === 1) {
    return strategies[0] === RETAIN_KEYS_STRATEGY ? { retainKeys: true, strategy: '' } : { retainKeys: false, strategy: strategies[0]! };
  }
  if (strategies.length === 2) {
    if (strategies[0] === RETAIN_KEYS_STRATEGY) return { retainKeys: true, strategy: strategies[1]! };
    if (strategies[1] === RETAIN_KEYS_STRATEGY) return { retainKeys: true, strategy: strategies[0]! };
  }
  throw new StrategicMergePatchError(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

/**
 * `$retainKeys: [a, b]`: every other key of the original goes; the patch may
 * set no key outside the list (nulls and list directives aside).
 */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw badPatchFormatForRetainKeys();
  const kept = new Set(retain.map(goKey));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!kept.has(goKey(k))) throw badPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!kept.has(goKey(k))) delete original[k];
}

/**
 * `$setElementOrder/<list>`: merge the list now (so the main loop skips it),
 * then order it: the listed items in the directive's order, with the items
 * only the server has kept in their current relative order among them.
 */
function applySetElementOrder(original: JsonMap, patch: JsonMap, schema: PatchSchema): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw badArgType(GO_SLICE, order);
    const key = listKeyOf(directiveKey, SET_ELEMENT_ORDER);
    const foundOriginal = Object.hasOwn(original, key);
    const foundPatch = Object.hasOwn(patch, key);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      const v = original[key];
      if (!Array.isArray(v)) throw badArgType(GO_SLICE, v);
      originalList = v;
    }
    if (foundPatch) {
      const v = patch[key];
      if (!Array.isArray(v)) throw badArgType(GO_SLICE, v);
      patchList = v;
    }
    const { schema: elementSchema, meta } = schema.lookupListField(key);
    const strategy = splitRetainKeys(meta.strategies).strategy;
    const mergeKey = meta.mergeKey;
    checkPatchAgainstOrder(patchList, order, mergeKey);

    let merged: unknown[];
    // Where the current items stand, for the items only the server has: the current list as the merge left it.
    let serverOrder = originalList;
    if (foundOriginal && foundPatch) {
      ({ merged, inPlace: serverOrder } = mergeListField(originalList, patchList, elementSchema, strategy, mergeKey, false));
    } else if (foundOriginal) {
      merged = originalList;
    } else if (foundPatch) {
      merged = removeDirectives(patchList).value as unknown[];
    } else {
      continue;
    }
    const { inPatch, serverOnly } = mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, mergeKey);
    const kind = elementKind(originalList, patchList);
    setOwn(original, key, normalizeElementOrder(inPatch, serverOnly, order, serverOrder, mergeKey, kind));
    delete patch[key];
  }
}

/**
 * The patch's list names its items in the order `$setElementOrder` does
 * (ignoring deletions and other directives), and names no item the directive
 * leaves out.
 */
function checkPatchAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : splitDeletions(patchList).kept;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isJsonMap(items[p]) && Object.hasOwn(items[p] as JsonMap, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeysEqual(items[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw new StrategicMergePatchError(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`);
  }
}

function mergeKeysEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return goEqual(left, right);
  if (!isJsonMap(left)) throw badArgType(GO_MAP, left);
  if (!isJsonMap(right)) throw badArgType(GO_MAP, right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}

/** A merged list, and the current list as the merge changed it in place (see InPlaceList). */
interface MergedList {
  readonly merged: unknown[];
  readonly inPlace: unknown[];
}

/** A list field: merged under the merge strategy (or for a deletion list), else the patch's list as sent. */
function mergeListField(original: unknown[], patch: unknown[], elementSchema: PatchSchema, strategy: string, mergeKey: string, isDeleteList: boolean): MergedList {
  if (strategy === MERGE || isDeleteList) return mergeList(original, patch, elementSchema, mergeKey, isDeleteList);
  return { merged: patch, inPlace: original };
}

function mergeList(original: unknown[], patch: unknown[], elementSchema: PatchSchema, mergeKey: string, isDeleteList: boolean): MergedList {
  if (original.length === 0 && patch.length === 0) return { merged: original, inPlace: original };
  const kind = elementKind(original, patch);
  let merged: unknown[];
  let current = original;
  let patchItems = patch;
  const inPlace = new InPlaceList(original);
  if (kind !== 'map') {
    if (isDeleteList) return { merged: deleteFromList(original, patch), inPlace: original };
    merged = deduplicate([...original, ...patch]);
  } else {
    if (mergeKey === '') throw new StrategicMergePatchError(`cannot merge lists without merge key for ${elementSchema.name}`);
    ({ original: current, patch: patchItems } = applyElementDirectives(original, patch, mergeKey, inPlace));
    merged = mergeByKey(current, patchItems, mergeKey, elementSchema, inPlace);
  }
  const { inPatch, serverOnly } = mergeKey === '' ? partitionPrimitives(merged, patchItems) : partitionMaps(merged, patchItems, mergeKey);
  return { merged: normalizeElementOrder(inPatch, serverOnly, patchItems, current, mergeKey, kind), inPlace: inPlace.items };
}

/**
 * The storage of a current list as upstream's in-place slice edits leave it,
 * the list having no spare capacity (as the API server's copies have none):
 * removing an element shifts the later ones left, and appended elements fill
 * the places so freed until the list outgrows its storage. Upstream then
 * orders the items only the server has by where they stand in this storage,
 * so `$setElementOrder` ordering depends on it.
 */
class InPlaceList {
  readonly items: unknown[];
  private length: number;
  private outgrown = false;

  constructor(list: readonly unknown[]) {
    this.items = [...list];
    this.length = list.length;
  }

  remove(index: number): void {
    this.items.copyWithin(index, index + 1, this.length);
    this.length--;
  }

  append(item: unknown): void {
    if (this.outgrown) return;
    if (this.length < this.items.length) this.items[this.length++] = item;
    else this.outgrown = true;
  }
}

/**
 * The elements of a patch list that carry `$patch`: `delete` removes every
 * element with its merge key; `replace` makes the list the patch's other
 * elements; `merge` is not supported.
 */
function applyElementDirectives(original: unknown[], patch: unknown[], mergeKey: string, inPlace: InPlaceList): { original: unknown[]; patch: unknown[] } {
  const plain: unknown[] = [];
  const current = [...original];
  let replace = false;
  for (const item of patch) {
    const element = item as JsonMap;
    if (!Object.hasOwn(element, DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    const directive = element[DIRECTIVE];
    if (directive === DELETE) {
      if (!Object.hasOwn(element, mergeKey)) throw noMergeKey(element, mergeKey);
      for (let index = findByKey(current, mergeKey, element[mergeKey]); index >= 0; index = findByKey(current, mergeKey, element[mergeKey])) {
        current.splice(index, 1);
        inPlace.remove(index);
      }
    } else if (directive === REPLACE) {
      replace = true;
    } else if (directive === MERGE) {
      throw new StrategicMergePatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, element);
    }
  }
  return replace ? { original: plain, patch: [] } : { original: current, patch: plain };
}

/** Each patch element merges into the current element with its key, or is appended. */
function mergeByKey(original: unknown[], patch: unknown[], mergeKey: string, elementSchema: PatchSchema, inPlace: InPlaceList): unknown[] {
  const result = [...original];
  for (const item of patch) {
    const element = item as JsonMap;
    if (!Object.hasOwn(element, mergeKey)) throw noMergeKey(element, mergeKey);
    const index = findByKey(result, mergeKey, element[mergeKey]);
    if (index >= 0) {
      result[index] = mergeMap(result[index] as JsonMap, element, elementSchema);
    } else {
      result.push(item);
      inPlace.append(item);
    }
  }
  return result;
}

/** The index of the first element whose merge key has `value`; every element must be an object. */
function findByKey(list: readonly unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const candidate = list[i];
    if (!isJsonMap(candidate)) throw new StrategicMergePatchError(`value for key ${i} is not a map`);
    if (Object.hasOwn(candidate, mergeKey) && goEqual(candidate[mergeKey], value)) return i;
  }
  return -1;
}

function deleteFromList(current: unknown[], toDelete: unknown[]): unknown[] {
  const doomed = new Set(toDelete.map(goKey));
  return current.filter((v) => !doomed.has(goKey(v)));
}

/**
 * Remove repeated primitives, as upstream does it (a repeat is replaced by the
 * last element). The order does not survive: the caller orders the result.
 */
function deduplicate(list: unknown[]): unknown[] {
  const s = [...list];
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (goEqual(s[i], s[j])) {
        s[j] = s[last];
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}

/**
 * The kind of the elements of some lists, which must all be of one kind and
 * not lists themselves.
 */
function elementKind(...lists: unknown[][]): GoKind {
  let kind: GoKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const k = goKind(item);
      if (kind === undefined) {
        if (k === 'slice') throw noListOfLists();
        kind = k;
      } else if (k !== kind) {
        throw new StrategicMergePatchError(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (kind === undefined) throw new StrategicMergePatchError('no elements in any of the given slices');
  return kind;
}

function partitionPrimitives(list: unknown[], by: unknown[]): { inPatch: unknown[]; serverOnly: unknown[] } {
  const present = new Set(by.map(goKey));
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (present.has(goKey(v)) ? inPatch : serverOnly).push(v);
  return { inPatch, serverOnly };
}

function partitionMaps(list: unknown[], by: unknown[], mergeKey: string): { inPatch: unknown[]; serverOnly: unknown[] } {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isJsonMap(v)) throw badArgType(GO_MAP, v);
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return { inPatch, serverOnly };
}

/**
 * Order the patch's items by `patchOrder` and the server-only items by
 * `serverOrder`, then interleave them: a server-only item goes before a patch
 * item when the current list has it earlier.
 */
function normalizeElementOrder(inPatch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  const right = sortByOrder(inPatch, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/**
 * A list sorted by where its items stand in `order` (elements marked for
 * deletion last). Upstream's comparator calls an item not in `order` less
 * than anything; the insertion sort here makes the same choices as Go's
 * stable sort for lists of up to 20 items, and the same result for any list
 * whose items are all in `order`.
 */
function sortByOrder(list: unknown[], order: unknown[], mergeKey: string, kind: GoKind): unknown[] {
  let items = list;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const l of [list, order]) {
      for (const item of l) {
        if (!isJsonMap(item)) throw badArgType(GO_MAP, item);
        if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      }
    }
    ({ kept: items, deletions } = splitDeletions(list));
  }
  const s = [...items];
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexIn(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexIn(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < s.length; i++) {
    for (let j = i; j > 0 && less(s[j], s[j - 1]); j--) [s[j], s[j - 1]] = [s[j - 1], s[j]];
  }
  return [...s, ...deletions];
}

/** Elements of a list of objects with `$patch: delete`, and the others. */
function splitDeletions(list: unknown[]): { kept: unknown[]; deletions: unknown[] } {
  const kept: unknown[] = [];
  const deletions: unknown[] = [];
  for (const item of list) {
    if (!isJsonMap(item)) throw badArgType(GO_MAP, item);
    (item[DIRECTIVE] === DELETE ? deletions : kept).push(item);
  }
  return { kept, deletions };
}

/** Where `item` stands in `list`: by its merge key for objects, by value otherwise; -1 when absent. */
function indexIn(list: readonly unknown[], item: unknown, mergeKey: string, kind: GoKind): number {
  const valueOf = kind === 'map' ? (v: unknown): unknown => (isJsonMap(v) ? v[mergeKey] : undefined) : (v: unknown): unknown => v;
  const wanted = valueOf(item);
  return list.findIndex((v) => goEqual(valueOf(v), wanted));
}
