/**
 * Conversions between etcd's messages and the Storage types: int64 revisions to
 * numbers (checked), keys between strings and UTF-8 bytes, KeyValue messages to
 * KeyValues, watch events to StorageEvents.
 */
import type { KeyValue, StorageEvent } from '../interface.js';
import { prefixEnd } from '../interface.js';
import type { EventMessage, KeyValueMessage, ResponseHeader } from './etcd-messages.js';

/** An etcd int64 (a decimal string) as a number; throws past 2^53, which no real store reaches. */
export function toNumber(value: string, what: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`etcd returned ${what} ${value}, which is not a safe integer`);
  return n;
}

/** The revision in a response header. */
export function headerRevision(header: ResponseHeader | null): number {
  if (header === null) throw new Error('etcd response has no header');
  return toNumber(header.revision, 'header revision');
}

export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

/** A byte range [key, range_end) covering every key under `prefix` (all keys for ''). */
export function prefixRange(prefix: string): { key: Buffer; range_end: Buffer } {
  const end = prefixEnd(prefix);
  // "\0" as key means the smallest key, and "\0" as range_end means "no upper bound".
  return {
    key: prefix === '' ? Buffer.from([0]) : keyBytes(prefix),
    range_end: end === '' ? Buffer.from([0]) : keyBytes(end),
  };
}

/** A view of a Buffer as a plain Uint8Array (same memory, the type the interface promises). */
export function plainBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function toKeyValue(kv: KeyValueMessage): KeyValue {
  return {
    key: kv.key.toString('utf8'),
    value: plainBytes(kv.value),
    createRevision: toNumber(kv.create_revision, 'create_revision'),
    modRevision: toNumber(kv.mod_revision, 'mod_revision'),
  };
}

/**
 * A watch event as a StorageEvent (a DELETE's revision is its kv.mod_revision),
 * or undefined when etcd could not attach the previous value although one
 * existed: etcd reads prev_kv when it sends the event, and a compaction at or
 * past the event's revision in between leaves it out. The watch cannot go on
 * faithfully then (a PUT would look like a creation), so the caller ends it.
 */
export function toStorageEvent(event: EventMessage): StorageEvent | undefined {
  if (event.kv === null) throw new Error('etcd watch event has no kv');
  const prevKv = event.prev_kv === null ? undefined : toKeyValue(event.prev_kv);
  if (event.type === 'PUT') {
    const kv = toKeyValue(event.kv);
    if (prevKv !== undefined) return { type: 'PUT', kv, prevKv };
    // version 1 is a creation: nothing came before.
    return event.kv.version === '1' ? { type: 'PUT', kv } : undefined;
  }
  if (prevKv === undefined) return undefined;
  return {
    type: 'DELETE',
    key: event.kv.key.toString('utf8'),
    revision: toNumber(event.kv.mod_revision, 'mod_revision'),
    prevKv,
  };
}
