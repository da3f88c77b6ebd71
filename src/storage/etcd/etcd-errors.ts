/**
 * gRPC and etcd errors as StorageErrors. etcd reports its own conditions as
 * gRPC statuses whose details carry a fixed message (api/v3rpc/rpctypes), so the
 * few we act on are recognised by message, the rest by status code.
 */
import { status, type ServiceError } from '@grpc/grpc-js';
import { StorageError } from '../errors.js';

// etcd's messages (the gRPC status details), stable since etcd 3.0.
const COMPACTED = 'required revision has been compacted';
const FUTURE_REVISION = 'required revision is a future revision';
const REQUEST_TOO_LARGE = 'request is too large';

/** A grpc-js call error: an Error with a numeric status code and details. */
export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof Error && 'code' in e && typeof e.code === 'number' && 'details' in e && typeof e.details === 'string';
}

/** etcd's ErrCompacted: a read or compaction at a revision older than the compact revision. */
export function isEtcdCompacted(e: unknown): boolean {
  return isServiceError(e) && e.code === status.OUT_OF_RANGE && e.details.includes(COMPACTED);
}

/** etcd's ErrFutureRev: a read or compaction at a revision after the current one. */
export function isEtcdFutureRevision(e: unknown): boolean {
  return isServiceError(e) && e.code === status.OUT_OF_RANGE && e.details.includes(FUTURE_REVISION);
}

export function isCancelled(e: unknown): boolean {
  return isServiceError(e) && e.code === status.CANCELLED;
}

/**
 * Translate any failure of an etcd call. A StorageError passes through; etcd's
 * "request is too large" (a value near the limit plus the request around it can
 * exceed etcd's --max-request-bytes) is TooLarge; a wrong request is
 * InvalidArgument; everything else (unreachable, no leader, timeouts, quota,
 * permissions) is Unavailable, with the original error as cause.
 */
export function toStorageError(e: unknown, operation: string, key?: string): StorageError {
  if (e instanceof StorageError) return e;
  const subject = key === undefined ? `etcd ${operation}` : `etcd ${operation} of key "${key}"`;
  const details = key === undefined ? {} : { key };
  if (isServiceError(e)) {
    const what = `${subject} failed: ${e.details} (gRPC ${status[e.code] ?? e.code})`;
    if (e.details.includes(REQUEST_TOO_LARGE)) return new StorageError('TooLarge', what, { ...details, cause: e });
    if (e.code === status.INVALID_ARGUMENT || e.code === status.OUT_OF_RANGE) {
      return new StorageError('InvalidArgument', what, { ...details, cause: e });
    }
    return new StorageError('Unavailable', what, { ...details, cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new StorageError('Unavailable', `${subject} failed: ${message}`, { ...details, cause: e });
}
