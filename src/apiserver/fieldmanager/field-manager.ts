/**
 * The field manager: keeps metadata.managedFields as upstream does on every
 * write (`update`, operation Update) and performs server-side apply
 * (`apply`): merge the applied configuration into the live object, drop the
 * fields the applier no longer applies when nobody else owns them, and fail
 * with conflicts on fields other managers own with a different value, unless
 * forced.
 */
import { FieldSet, fieldElement, goJson, type JsonValue } from './field-set.js';
import { ApplyConflicts, type Conflict } from './conflicts.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  identity,
  identityKey,
  isResetRequest,
  nowTime,
  type Managed,
  type ManagedEntry,
  type ManagerIdentity,
} from './managed-fields.js';
import type { TypeRef, TypeSchema } from './schema.js';
import { cloneJson } from './json-clone.js';
import { createdFieldSet } from './created-fields.js';
import { shallowCopy } from './value-structs.js';
import { compare, compareCompleted, ensureNamedFieldsAreMembers, equalValues, merge, removeItems, toFieldSet, validateConfiguration } from './typed.js';

type JsonObject = { [key: string]: JsonValue };

/** Upstream keeps at most this many Update entries; older ones merge into "ancient-changes". */
export const MAX_UPDATE_MANAGERS = 10;

/** Fields never tracked (upstream's stripMeta). */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldElement('metadata'),
    fieldElement(f),
  ]),
);

const SELF = '\u0000current-operation';

/** Update identities kept per field manager; past this, the kept ones are dropped (names come from clients). */
const MAX_UPDATERS = 1000;

export interface FieldManagerConfig {
  readonly schema: TypeSchema;
  /** The type of the served kind. */
  readonly type: TypeRef;
  /** The apiVersion of the request: `v1`, `apps/v1`. */
  readonly apiVersion: string;
  readonly kind: string;
  /** '' for the main resource, `status`, `scale`. */
  readonly subresource: string;
  /** Fields the (sub)resource's strategy resets, never owned through it (upstream's GetResetFields). */
  readonly resetFields: FieldSet;
  readonly now?: () => Date;
}

export interface UpdateOptions {
  /** The caller gives `next` away (nobody else holds it): it may become the result. */
  readonly nextIsOwn?: boolean;
}

export class FieldManager {
  /** The identity of each manager's Update entry and its key, by manager name: the same few managers write again and again. */
  private readonly updaters = new Map<string, { readonly id: ManagerIdentity; readonly key: string }>();

  constructor(private readonly config: FieldManagerConfig) {}

  /**
   * The new object of a create (live undefined), update or patch, with
   * managedFields recording what `manager` changed. As upstream's
   * UpdateNoErrors: should tracking fail, the live object's entries stay.
   * `next` is left as it is, unless the caller gives it (`nextIsOwn`: nobody
   * else holds it), which saves copying its top level and metadata.
   */
  update(live: JsonObject | undefined, next: JsonObject, manager: string, options: UpdateOptions = {}): JsonObject {
    // The result's metadata is built without managedFields rather than deleting it (which would slow every later read of the object).
    const reuse = options.nextIsOwn === true && isObject(next.metadata) && !Object.hasOwn(next.metadata, 'managedFields');
    const result = reuse ? next : withOwnMetadataWithoutManagedFields(next);
    const meta = metadataOf(result);
    const order = keyOrder(next, live);
    try {
      let managed = this.managedForUpdate(live, next);
      if (managed.size === 0 && live !== undefined && hasUid(live)) return result; // untracked objects stay untracked
      managed = this.trackUpdate(live ?? {}, result, managed, manager);
      setManagedFields(result, managed, order);
    } catch {
      // Upstream's UpdateNoErrors: a write never fails for its bookkeeping.
      const liveEntries = live === undefined ? undefined : metadataOf(live).managedFields;
      if (liveEntries === undefined) delete meta.managedFields;
      else meta.managedFields = cloneJson(liveEntries);
    }
    return result;
  }

  /**
   * Server-side apply of `applied` onto `live` (undefined: the object does
   * not exist yet). Returns the object to store, with managedFields.
   * Throws ApplyConflicts, or a BadRequestError for an invalid configuration.
   */
  apply(live: JsonObject | undefined, applied: JsonObject, manager: string, force: boolean): JsonObject {
    try {
      return this.applyOnce(live, applied, manager, force);
    } catch (e: unknown) {
      // kubectl taking over from client-side apply (upstream's lastAppliedManager):
      // the fields its last-applied annotation still describes are no conflict.
      if (!(e instanceof ApplyConflicts) || manager !== 'kubectl' || live === undefined) throw e;
      const allowed = this.allowedByLastApplied(live);
      if (allowed === undefined) throw e;
      const remaining = e.conflicts.filter((c) => !allowed.has(c.path));
      if (remaining.length > 0) throw new ApplyConflicts(remaining);
      return this.applyOnce(live, applied, manager, true);
    }
  }

  /** The fields the live client-side apply annotation sets to the values the object still has. */
  private allowedByLastApplied(live: JsonObject): FieldSet | undefined {
    const annotations = isObject(live.metadata) ? live.metadata.annotations : undefined;
    const text = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
    if (typeof text !== 'string' || text === '') return undefined;
    const { schema, type, apiVersion } = this.config;
    try {
      const lastApplied = JSON.parse(text) as JsonValue;
      if (!isObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
      const liveObject = withOwnMetadata(live);
      delete metadataOf(liveObject).managedFields;
      const c = compare(schema, lastApplied, liveObject, type);
      return toFieldSet(schema, lastApplied, type).difference(c.modified).difference(c.added).difference(c.removed);
    } catch {
      return undefined;
    }
  }

  private applyOnce(live: JsonObject | undefined, applied: JsonObject, manager: string, force: boolean): JsonObject {
    const { apiVersion, kind } = this.config;
    if (applied.apiVersion !== apiVersion || applied.kind !== kind) {
      throw new ApplyInputError(`invalid object type: ${gvkString(applied.apiVersion, applied.kind)}`);
    }
    const liveObject = cloneJson(live ?? {});
    const order = keyOrder(liveObject, undefined);
    let managed: Managed;
    try {
      managed = decodeManagedFields(metadataOf(liveObject).managedFields);
    } catch (e: unknown) {
      throw new Error(`failed to decode managed fields: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    delete metadataOf(liveObject).managedFields;
    if (managed.size === 0 && live !== undefined) {
      // Fields set before the first apply belong to "before-first-apply".
      managed = this.trackUpdate({}, liveObject, managed, 'before-first-apply');
    }
    if (isObject(applied.metadata) && applied.metadata.managedFields !== undefined) {
      throw new ApplyInputError('metadata.managedFields must be nil');
    }
    const { schema, type } = this.config;
    validateConfiguration(schema, applied, type);
    const id = identity(manager, 'Apply', apiVersion, this.config.subresource);
    const key = identityKey(id);
    const merged = (merge(schema, liveObject, applied, type) ?? {}) as JsonObject;
    const lastSet = managed.get(key)?.set;
    const set = toFieldSet(schema, applied, type).recursiveDifference(this.config.resetFields);
    managed.set(key, { identity: id, apiVersion, set, time: managed.get(key)?.time });
    const pruned = lastSet === undefined || lastSet.empty() ? merged : this.prune(merged, managed, lastSet);
    const next = dropNulls(pruned) as JsonObject;
    this.updateOwners(liveObject, next, managed, key, force);
    const changed = !equalValues(liveObject, next);
    this.strip(managed, key);
    const entry = managed.get(key);
    if (entry !== undefined && changed) managed.set(key, { ...entry, time: this.now() });
    const result = changed ? next : liveObject;
    if (manager === 'kubectl') syncLastApplied(result, applied);
    setManagedFields(result, managed, order);
    return result;
  }

  private now(): string {
    return nowTime(this.config.now?.() ?? Date.now());
  }

  private updater(manager: string): { readonly id: ManagerIdentity; readonly key: string } {
    let u = this.updaters.get(manager);
    if (u === undefined) {
      if (this.updaters.size >= MAX_UPDATERS) this.updaters.clear();
      const id = identity(manager, 'Update', this.config.apiVersion, this.config.subresource);
      u = { id, key: identityKey(id) };
      this.updaters.set(manager, u);
    }
    return u;
  }

  /** Upstream's decodeLiveOrNew: the request's own entries when it sends valid ones, else the live object's. */
  private managedForUpdate(live: JsonObject | undefined, next: JsonObject): Managed {
    const liveEntries = live === undefined ? undefined : metadataOf(live).managedFields;
    const fromLive = (): Managed => {
      try {
        return decodeManagedFields(liveEntries);
      } catch {
        return new Map();
      }
    };
    if (this.config.subresource !== '') return fromLive();
    const sent = metadataOf(next).managedFields;
    if (isResetRequest(sent)) return new Map();
    try {
      const managed = decodeManagedFields(sent);
      return managed.size === 0 ? fromLive() : managed;
    } catch {
      return fromLive();
    }
  }

  /** Record an Update by `manager` from `live` to `next` (upstream's managedFieldsUpdater, stripMeta and capManagers). */
  private trackUpdate(live: JsonObject, next: JsonObject, managed: Managed, manager: string): Managed {
    const apiVersion = this.config.apiVersion;
    const nextCopy = withoutManagedFields(next);
    // Over nothing (a create, the first apply's "before-first-apply"), nobody loses a field: the fields of `next` are the entry.
    let own = managed.size === 0 && !hasKeys(live) ? createdFieldSet(this.config.schema, nextCopy, this.config.type, this.config.resetFields, STRIPPED) : undefined;
    if (own === undefined) {
      const comparison = this.updateOwners(withoutManagedFields(live), nextCopy, managed, SELF, true);
      own = comparison.modified.union(comparison.added).recursiveDifference(this.config.resetFields).difference(STRIPPED);
    }
    const { id, key } = this.updater(manager);
    if (!own.empty()) {
      const previous = managed.get(key);
      managed.set(key, { identity: id, apiVersion, set: previous === undefined ? own : own.union(previous.set), time: this.now() });
    }
    return capUpdateManagers(managed);
  }

  /**
   * Take the fields `workflow` changed away from every other manager (a
   * conflict unless forced), and the removed fields from everyone.
   */
  private updateOwners(live: JsonObject, next: JsonObject, managed: Managed, workflow: string, force: boolean): { modified: FieldSet; added: FieldSet } {
    const { schema, type, resetFields } = this.config;
    const c = compareCompleted(schema, live, next, type);
    const modified = c.modified.recursiveDifference(resetFields);
    const added = c.added.recursiveDifference(resetFields);
    const removed = c.removed.recursiveDifference(resetFields);
    const changed = modified.union(added);
    const conflicts: Conflict[] = [];
    const taken = new Map<string, FieldSet>();
    for (const [key, entry] of managed) {
      if (key === workflow) continue;
      const clash = entry.set.intersection(changed);
      if (!clash.empty()) {
        taken.set(key, clash);
        for (const path of clash.list()) conflicts.push({ manager: entry.identity, path });
      }
    }
    if (!force && conflicts.length > 0) throw new ApplyConflicts(conflicts);
    for (const [key, entry] of [...managed]) {
      if (key === workflow) continue;
      const clash = taken.get(key);
      const set = (clash === undefined ? entry.set : entry.set.difference(clash)).difference(removed);
      if (set.empty()) managed.delete(key);
      else if (set !== entry.set) managed.set(key, { ...entry, set });
    }
    return { modified, added };
  }

  private prune(merged: JsonObject, managed: Managed, lastSet: FieldSet): JsonValue {
    const { schema, type } = this.config;
    const ensure = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(schema, s, type);
    const remove = (v: JsonValue, s: FieldSet): JsonValue => removeItems(schema, v, s, type) ?? {};
    let pruned = remove(merged, ensure(lastSet));
    // Add back what someone (the applier included) still owns.
    let owned = new FieldSet();
    for (const entry of managed.values()) owned = owned.union(entry.set);
    const mergedSet = ensure(toFieldSet(schema, merged, type));
    pruned = remove(merged, mergedSet.difference(ensure(toFieldSet(schema, pruned, type)).union(ensure(owned))));
    // Add back what the last apply did not set either (dangling items nobody owns).
    const prunedSet = ensure(toFieldSet(schema, pruned, type));
    return remove(merged, mergedSet.difference(prunedSet).intersection(ensure(lastSet)));
  }

  private strip(managed: Managed, key: string): void {
    const entry = managed.get(key);
    if (entry === undefined) return;
    const set = entry.set.difference(STRIPPED);
    if (set.empty()) managed.delete(key);
    else managed.set(key, { ...entry, set });
  }
}

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * kubectl's server-side apply keeps an existing client-side apply annotation
 * in step with what it applied (upstream's lastAppliedUpdater), so that a
 * later client-side apply computes its patch from the right configuration.
 */
function syncLastApplied(object: JsonObject, applied: JsonObject): void {
  const annotations = metadataOf(object).annotations;
  if (!isObject(annotations) || annotations[LAST_APPLIED] === undefined) return;
  const config = cloneJson(applied);
  const configAnnotations = metadataOf(config).annotations;
  if (isObject(configAnnotations)) delete configAnnotations[LAST_APPLIED];
  annotations[LAST_APPLIED] = `${sortedJson(config)}\n`;
}

/** JSON with object keys sorted, as Go encodes a map. */
function sortedJson(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${goJsonString(k)}:${sortedJson(v[k]!)}`).join(',')}}`;
  }
  return typeof v === 'string' ? goJsonString(v) : JSON.stringify(v);
}

const goJsonString = (s: string): string => goJson(s);

/** A configuration upstream rejects with 400 BadRequest. */
export class ApplyInputError extends Error {}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const group = slash < 0 ? '' : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** Merge the oldest Update entries (by time) into one "ancient-changes" entry per apiVersion, keeping at most MAX_UPDATE_MANAGERS. */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): Managed {
  if (managed.size <= max) return managed; // fewer entries than the cap, let alone Update ones
  const updaters = [...managed.entries()].filter(([, e]) => e.identity.operation === 'Update');
  if (updaters.length <= max) return managed;
  const secs = (e: ManagedEntry): number => (e.time === undefined ? 0 : Math.floor(Date.parse(e.time) / 1000) || 0);
  updaters.sort(([ka, a], [kb, b]) => secs(a) - secs(b) || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [key, entry] = updaters[i]!;
    const bucketId = identity('ancient-changes', 'Update', entry.apiVersion, '');
    const bucket = identityKey(bucketId);
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, key);
      continue;
    }
    if (!managed.has(bucket)) {
      const firstEntry = managed.get(first)!;
      managed.delete(first);
      managed.set(bucket, { ...firstEntry, identity: bucketId });
    }
    const current = managed.get(bucket)!;
    managed.set(bucket, { identity: bucketId, apiVersion: entry.apiVersion, set: entry.set.union(current.set), time: entry.time });
    managed.delete(key);
    length--;
  }
  return managed;
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A shallow copy whose metadata object is its own (the walks below never mutate anything else). */
function withOwnMetadata(o: JsonObject): JsonObject {
  const out = shallowCopy(o);
  if (isObject(o.metadata)) out.metadata = shallowCopy(o.metadata);
  return out;
}

/** A shallow copy with a metadata of its own that leaves managedFields out ({} when `o` has no metadata object). */
function withOwnMetadataWithoutManagedFields(o: JsonObject): JsonObject {
  const out = shallowCopy(o);
  out.metadata = isObject(o.metadata) ? copyWithoutManagedFields(o.metadata) : {};
  return out;
}

function copyWithoutManagedFields(meta: JsonObject): JsonObject {
  if (!Object.hasOwn(meta, 'managedFields')) return shallowCopy(meta);
  let own: JsonObject;
  if (Object.hasOwn(meta, '__proto__')) {
    // An assignment would set the prototype: the slow way, which defines the key.
    own = { ...meta };
    delete own.managedFields;
  } else {
    own = {};
    for (const k in meta) if (k !== 'managedFields') own[k] = meta[k]!;
  }
  return own;
}

/**
 * The object without metadata.managedFields, for a walk: `o` itself when it
 * has none, else a shallow copy with a metadata of its own (built without
 * the field rather than deleting it, which would slow every later read of it).
 */
function withoutManagedFields(o: JsonObject): JsonObject {
  const meta = o.metadata;
  if (!isObject(meta)) {
    const out = shallowCopy(o);
    out.metadata = {};
    return out;
  }
  if (!Object.hasOwn(meta, 'managedFields')) return o;
  const out = shallowCopy(o);
  out.metadata = copyWithoutManagedFields(meta);
  return out;
}

function hasKeys(o: JsonObject): boolean {
  for (const _ in o) return true;
  return false;
}

function metadataOf(o: JsonObject): JsonObject {
  if (!isObject(o.metadata)) o.metadata = {};
  return o.metadata as JsonObject;
}

function hasUid(o: JsonObject): boolean {
  const uid = metadataOf(o).uid;
  return typeof uid === 'string' && uid !== '';
}

/**
 * Write the entries back where metadata had them (`order`: its keys as they
 * were), so that an unchanged object encodes to the same bytes and the
 * store skips the write, as upstream's does.
 */
function setManagedFields(o: JsonObject, managed: Managed, order: readonly string[] = []): void {
  const meta = metadataOf(o);
  const entries = encodeManagedFields(managed);
  if (entries === undefined) delete meta.managedFields;
  else meta.managedFields = entries as unknown as JsonValue;
  if (!order.includes('managedFields')) return;
  const ordered: JsonObject = {};
  for (const k of order) if (k in meta) ordered[k] = meta[k]!;
  for (const [k, v] of Object.entries(meta)) if (!(k in ordered)) ordered[k] = v;
  o.metadata = ordered;
}

/** The metadata keys of the request's object, or of the live one when the request sends no managedFields. */
function keyOrder(primary: JsonObject, fallback: JsonObject | undefined): string[] {
  const keys = isObject(primary.metadata) ? Object.keys(primary.metadata) : [];
  if (keys.includes('managedFields') || fallback === undefined || !isObject(fallback.metadata)) return keys;
  return Object.keys(fallback.metadata);
}

/** Null fields mean "unset" for built-in kinds (Go's decoder leaves them at their zero value). */
function dropNulls(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
    return out;
  }
  return v;
}
