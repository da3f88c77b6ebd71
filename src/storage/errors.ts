import type { KeyValue } from './interface.js';

/**
 * Why a storage call failed. The generic registry store translates these once
 * into API Status errors (KeyNotFound → 404, KeyExists → 409 AlreadyExists,
 * Conflict → 409 Conflict, Compacted → 410 Gone, TooLarge → 413, Unavailable and
 * Closed → 503); HTTP code never sees them.
 */
export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'TooLarge'
  | 'InvalidArgument'
  | 'Unavailable'
  | 'Closed';

export interface StorageErrorDetails {
  readonly key?: string;
  /** For Conflict: the value the store holds now (saves the caller a read before retrying). */
  readonly current?: KeyValue;
  /** For Compacted: the oldest revision still readable. */
  readonly compactRevision?: number;
  /** For FutureRevision: the store's current revision. */
  readonly currentRevision?: number;
  readonly cause?: unknown;
}

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly code: StorageErrorCode;
  readonly key: string | undefined;
  readonly current: KeyValue | undefined;
  readonly compactRevision: number | undefined;
  readonly currentRevision: number | undefined;

  constructor(code: StorageErrorCode, message: string, details: StorageErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.key = details.key;
    this.current = details.current;
    this.compactRevision = details.compactRevision;
    this.currentRevision = details.currentRevision;
  }
}

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

export const keyNotFound = (key: string): StorageError =>
  new StorageError('KeyNotFound', `key "${key}" not found`, { key });

export const keyExists = (key: string): StorageError =>
  new StorageError('KeyExists', `key "${key}" already exists`, { key });

export const conflict = (key: string, expected: number, current: KeyValue): StorageError =>
  new StorageError(
    'Conflict',
    `key "${key}" was modified: expected revision ${expected}, found ${current.modRevision}`,
    { key, current },
  );

export const compacted = (requested: number, compactRevision: number): StorageError =>
  new StorageError(
    'Compacted',
    `revision ${requested} has been compacted; the oldest available revision is ${compactRevision}`,
    { compactRevision },
  );

export const futureRevision = (requested: number, current: number): StorageError =>
  new StorageError(
    'FutureRevision',
    `revision ${requested} is in the future; the current revision is ${current}`,
    { currentRevision: current },
  );

export const tooLarge = (key: string, size: number, limit: number): StorageError =>
  new StorageError('TooLarge', `value of key "${key}" is ${size} bytes, over the limit of ${limit} bytes`, { key });

export const invalidArgument = (message: string): StorageError => new StorageError('InvalidArgument', message);

export const closed = (): StorageError => new StorageError('Closed', 'storage is closed');

export const unavailable = (message: string, cause?: unknown): StorageError =>
  new StorageError('Unavailable', message, { cause });
