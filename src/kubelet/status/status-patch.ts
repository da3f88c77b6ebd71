/**
 * The strategic merge patch from one pod status to another, as upstream's
 * status manager sends it (statusutil.PatchPodStatus: a two-way merge patch
 * between the old and the new status, with the pod's uid in the patch's
 * metadata so that a pod deleted and recreated under the same name is never
 * given another pod's status). Lists with a merge key (conditions by type,
 * podIPs and hostIPs by ip) are patched item by item with
 * `$setElementOrder` (the whole list with `$patch: replace` when one went); other lists are
 * replaced whole; removed fields are null.
 */
import { isPlainObject, jsonEqual } from '../../machinery/meta.js';
import type { PodStatus } from 'kubernetes-types/core/v1.js';

type Json = Record<string, unknown>;

/** Merge keys of PodStatus's merged lists (k8s.io/api core/v1 patchMergeKey). */
const MERGE_KEYS: Readonly<Record<string, string>> = { conditions: 'type', podIPs: 'ip', hostIPs: 'ip', resourceClaimStatuses: 'name' };

function diffMaps(oldMap: Json, newMap: Json, mergeKeys: Readonly<Record<string, string>>): Json {
  const patch: Json = {};
  for (const key of new Set([...Object.keys(oldMap), ...Object.keys(newMap)])) {
    const before = oldMap[key];
    const after = newMap[key];
    if (jsonEqual(before, after)) continue;
    if (after === undefined) {
      patch[key] = null;
      continue;
    }
    const mergeKey = mergeKeys[key];
    if (mergeKey !== undefined && Array.isArray(after) && (before === undefined || Array.isArray(before))) {
      Object.assign(patch, diffMergedList(key, mergeKey, (before ?? []) as Json[], after as Json[]));
      continue;
    }
    if (isPlainObject(before) && isPlainObject(after)) {
      const nested = diffMaps(before, after, {});
      if (Object.keys(nested).length > 0) patch[key] = nested;
      continue;
    }
    patch[key] = after;
  }
  return patch;
}

function diffMergedList(field: string, mergeKey: string, before: Json[], after: Json[]): Json {
  const items: Json[] = [];
  const beforeByKey = new Map(before.map((item) => [item[mergeKey], item]));
  const afterKeys = new Set(after.map((item) => item[mergeKey]));
  for (const item of after) {
    const old = beforeByKey.get(item[mergeKey]);
    if (old === undefined) {
      items.push(item);
      continue;
    }
    const changes = diffMaps(old, item, {});
    if (Object.keys(changes).length > 0) items.push({ [mergeKey]: item[mergeKey], ...changes });
  }
  // An item went: the list is sent whole with `$patch: replace` (simpler for servers than deletions mixed with an element order).
  if (before.some((item) => !afterKeys.has(item[mergeKey]))) return { [field]: [{ $patch: 'replace' }, ...after] };
  const sameOrder = jsonEqual(
    before.filter((i) => afterKeys.has(i[mergeKey])).map((i) => i[mergeKey]),
    after.filter((i) => beforeByKey.has(i[mergeKey])).map((i) => i[mergeKey]),
  );
  if (items.length === 0 && sameOrder) return {};
  // With nothing before, the patch's own order is the list's: no directive needed.
  if (before.length === 0) return { [field]: items };
  return { [`$setElementOrder/${field}`]: after.map((item) => ({ [mergeKey]: item[mergeKey] })), ...(items.length > 0 ? { [field]: items } : {}) };
}

/**
 * A status as the API server stores it: a null or empty-object field is the
 * same as an absent one (Go's zero values: a condition's `lastProbeTime: null`,
 * a container's `lastState: {}`). Compared raw, such a field would differ
 * after every write, and the status would be written again and again.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const [key, field] of Object.entries(value)) {
    const c = canonical(field);
    if (c === null || c === undefined || (isPlainObject(c) && Object.keys(c).length === 0)) continue;
    out[key] = c;
  }
  return out;
}

/** The patch body, or undefined when the statuses are equal. `uid` goes into metadata (omit it for mirror pods). */
export function podStatusPatch(oldStatus: PodStatus | undefined, newStatus: PodStatus, uid: string | undefined): Json | undefined {
  const status = diffMaps(canonical(oldStatus ?? {}) as Json, canonical(newStatus) as Json, MERGE_KEYS);
  if (Object.keys(status).length === 0) return undefined;
  return { ...(uid !== undefined ? { metadata: { uid } } : {}), status };
}
