/**
 * Nanosecond wall-clock time (CRI timestamps are int64 nanoseconds) and Go's
 * RFC3339Nano text form, which the CRI log format uses: the fraction keeps up
 * to nine digits with trailing zeros dropped, and no dot at all when it is zero.
 */

const wallAtStart = BigInt(Date.now()) * 1_000_000n;
const monotonicAtStart = process.hrtime.bigint();

/** Nanoseconds since the epoch: the wall clock at start plus a monotonic offset. */
export function nowNanos(): bigint {
  return wallAtStart + (process.hrtime.bigint() - monotonicAtStart);
}

export function formatRfc3339Nano(nanos: bigint): string {
  const ms = Number(nanos / 1_000_000n);
  const base = new Date(ms).toISOString().slice(0, 19); // YYYY-MM-DDTHH:MM:SS
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction === '' ? `${base}Z` : `${base}.${fraction}Z`;
}
