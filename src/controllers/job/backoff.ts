/**
 * The delay before a Job recreates pods after failures (upstream's
 * backoffRecord and getRemainingTime): 10 s × 2^(failures since the last
 * success − 1), at most 10 minutes (upstream's DefaultJobPodFailureBackOff
 * and MaxJobPodFailureBackOff), counted from the last failure.
 */
export const DEFAULT_POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

export interface BackoffRecord {
  readonly failuresAfterLastSuccess: number;
  /** When the last counted failure happened (ms since epoch). */
  readonly lastFailureTime: number | undefined;
}

export interface BackoffOptions {
  readonly baseMs?: number;
  readonly maxMs?: number;
}

/** The record after some newly finished pods: a success resets it; failures add up. */
export function nextBackoffRecord(
  previous: BackoffRecord,
  finished: { readonly succeeded: number; readonly failureTimes: readonly number[] },
): BackoffRecord {
  if (finished.succeeded > 0 && finished.failureTimes.length === 0) return { failuresAfterLastSuccess: 0, lastFailureTime: undefined };
  if (finished.failureTimes.length === 0) return previous;
  const last = Math.max(...finished.failureTimes, previous.lastFailureTime ?? -Infinity);
  const base = finished.succeeded > 0 ? 0 : previous.failuresAfterLastSuccess;
  return { failuresAfterLastSuccess: base + finished.failureTimes.length, lastFailureTime: last };
}

/** How long to wait before creating pods again (0: now). */
export function remainingBackoffMs(record: BackoffRecord, now: number, options: BackoffOptions = {}): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  const base = options.baseMs ?? DEFAULT_POD_FAILURE_BACKOFF_MS;
  const max = options.maxMs ?? MAX_POD_FAILURE_BACKOFF_MS;
  const exponent = Math.min(record.failuresAfterLastSuccess - 1, 30);
  const backoff = Math.min(base * 2 ** exponent, max);
  return Math.max(0, record.lastFailureTime + backoff - now);
}
