/**
 * metadata.managedFields in memory and on the wire: one entry per manager
 * identity (manager name, operation, subresource, and the apiVersion of an
 * Update), each with the set of fields it owns in FieldsV1 form. Decoding
 * checks entries as upstream does; encoding sorts them as upstream does
 * (operation, time, manager, apiVersion, subresource).
 */
import { FieldSet, FieldsDecodeError, type JsonValue } from './field-set.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerIdentity {
  readonly manager: string;
  readonly operation: Operation;
  /** Empty for Apply: an applier keeps its identity across versions. */
  readonly apiVersion: string;
  readonly subresource: string;
}

export interface ManagedEntry {
  readonly identity: ManagerIdentity;
  readonly apiVersion: string;
  readonly set: FieldSet;
  readonly time: string | undefined;
}

/** Entries by identity key (upstream's JSON manager identifier). */
export type Managed = Map<string, ManagedEntry>;

/** Upstream's manager identifier: the entry without fields, fieldsType and time (and apiVersion for Apply), as JSON. */
export function identityKey(id: ManagerIdentity): string {
  // JSON.stringify of {manager, operation, apiVersion, subresource} without the empty ones, written out.
  let key = id.manager !== '' ? `{"manager":${JSON.stringify(id.manager)},"operation":` : '{"operation":';
  key += JSON.stringify(id.operation);
  if (id.operation !== 'Apply' && id.apiVersion !== '') key += `,"apiVersion":${JSON.stringify(id.apiVersion)}`;
  if (id.subresource !== '') key += `,"subresource":${JSON.stringify(id.subresource)}`;
  return `${key}}`;
}

export function identity(manager: string, operation: Operation, apiVersion: string, subresource: string): ManagerIdentity {
  return { manager: manager === '' ? 'unknown' : manager, operation, apiVersion: operation === 'Apply' ? '' : apiVersion, subresource };
}

export class ManagedFieldsError extends Error {}

/** Whether the client asks to clear managedFields: `[]` or `[{}]`. */
export function isResetRequest(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const only: unknown = entries[0];
  return entries.length === 1 && only !== null && typeof only === 'object' && !Array.isArray(only) && Object.keys(only).length === 0;
}

/** Decode managedFields from an object's metadata; throws ManagedFieldsError on an entry upstream rejects. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = new Map();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const e = raw as Record<string, unknown>;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1) throw new ManagedFieldsError('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType "${String(e.fieldsType)}" in managed fields entry ${i}`);
    const id: ManagerIdentity = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.operation === 'Apply' ? '' : e.apiVersion,
      subresource: typeof e.subresource === 'string' ? e.subresource : '',
    };
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1);
    } catch (err: unknown) {
      if (err instanceof FieldsDecodeError) throw new ManagedFieldsError(`error decoding set: ${err.message}`, { cause: err });
      throw err;
    }
    managed.set(identityKey(id), { identity: id, apiVersion: e.apiVersion, set, time: typeof e.time === 'string' ? e.time : undefined });
  });
  return managed;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: { [key: string]: JsonValue };
  subresource?: string;
}

const seconds = (time: string | undefined): number => (time === undefined ? 0 : Math.floor(Date.parse(time) / 1000) || 0);

/**
 * The seconds of the last two times read: entries of one object share their
 * times write after write, and an update sorts its own entry (now) against
 * the one before it.
 */
let lastTime: string | undefined;
let lastSeconds = 0;
let otherTime: string | undefined;
let otherSeconds = 0;

function secondsOf(time: string | undefined): number {
  if (time === undefined) return 0;
  if (time === lastTime) return lastSeconds;
  if (time === otherTime) return otherSeconds;
  otherTime = lastTime;
  otherSeconds = lastSeconds;
  lastSeconds = seconds(time);
  lastTime = time;
  return lastSeconds;
}

/** The wire form, sorted as upstream sorts it; undefined when there is no entry. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const m of managed.values()) {
    // Built property by property (in the wire order), not by spreading: this runs on every write.
    const entry: ManagedFieldsEntry = {} as ManagedFieldsEntry;
    if (m.identity.manager !== '') entry.manager = m.identity.manager;
    entry.operation = m.identity.operation;
    entry.apiVersion = m.apiVersion;
    if (m.time !== undefined) entry.time = m.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = m.set.toFieldsV1();
    if (m.identity.subresource !== '') entry.subresource = m.identity.subresource;
    entries.push(entry);
  }
  if (entries.length === 1) return entries;
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  // Each entry's time parsed once, not once per comparison.
  const secs = new Map<ManagedFieldsEntry, number>();
  for (const e of entries) secs.set(e, secondsOf(e.time));
  return entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      secs.get(p)! - secs.get(q)! ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** The time of an entry as upstream writes it: RFC 3339, seconds, UTC (`now`: a Date or milliseconds since the epoch). */
export function nowTime(now: Date | number = Date.now()): string {
  const ms = typeof now === 'number' ? now : now.getTime();
  const second = Math.floor(ms / 1000);
  // Writes come many to a second: the text of the last one is kept.
  if (second !== lastNowSecond || lastNowText === undefined) {
    lastNowText = `${new Date(ms).toISOString().slice(0, 19)}Z`;
    lastNowSecond = second;
  }
  return lastNowText;
}

let lastNowSecond = 0;
let lastNowText: string | undefined;
