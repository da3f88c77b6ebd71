/**
 * How KeyValues and errors cross the socket in JSON frames (lists, deletes,
 * failed calls; see frames.ts): a KeyValue is a small header record whose
 * value is the index of a blob of the frame; a StorageError keeps its code
 * and details, so that the client throws what the store threw.
 */
import { StorageError, type StorageErrorCode } from '../errors.js';
import type { KeyValue } from '../interface.js';

export interface WireKeyValue {
  readonly k: string;
  readonly c: number;
  readonly m: number;
  /** Index of the value in the frame's blobs. */
  readonly v: number;
}

export interface WireError {
  readonly code: StorageErrorCode;
  readonly message: string;
  readonly key?: string;
  readonly current?: WireKeyValue;
  readonly compactRevision?: number;
  readonly currentRevision?: number;
}

/** Adds the KeyValue's value to `blobs` and returns its header record. */
export function wireKeyValue(kv: KeyValue, blobs: Uint8Array[]): WireKeyValue {
  blobs.push(kv.value);
  return { k: kv.key, c: kv.createRevision, m: kv.modRevision, v: blobs.length - 1 };
}

export function keyValueFromWire(w: WireKeyValue, blobs: readonly Uint8Array[]): KeyValue {
  const value = blobs[w.v];
  if (value === undefined) throw new Error(`remote store: frame lacks blob ${w.v}`);
  return { key: w.k, value, createRevision: w.c, modRevision: w.m };
}

/** Any error as the client should see it: StorageErrors as they are, anything else as Unavailable. */
export function wireError(e: unknown, blobs: Uint8Array[]): WireError {
  if (e instanceof StorageError) {
    return {
      code: e.code,
      message: e.message,
      ...(e.key !== undefined ? { key: e.key } : {}),
      ...(e.current !== undefined ? { current: wireKeyValue(e.current, blobs) } : {}),
      ...(e.compactRevision !== undefined ? { compactRevision: e.compactRevision } : {}),
      ...(e.currentRevision !== undefined ? { currentRevision: e.currentRevision } : {}),
    };
  }
  return { code: 'Unavailable', message: `remote store: ${e instanceof Error ? e.message : String(e)}` };
}

export function errorFromWire(w: WireError, blobs: readonly Uint8Array[]): StorageError {
  return new StorageError(w.code, w.message, {
    ...(w.key !== undefined ? { key: w.key } : {}),
    ...(w.current !== undefined ? { current: keyValueFromWire(w.current, blobs) } : {}),
    ...(w.compactRevision !== undefined ? { compactRevision: w.compactRevision } : {}),
    ...(w.currentRevision !== undefined ? { currentRevision: w.currentRevision } : {}),
  });
}
