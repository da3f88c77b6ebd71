/**
 * Duration flags written as Go's time.ParseDuration reads them (`40s`, `5m`,
 * `1h30m`), so that upstream's duration flags take the same values here.
 * The parser itself is the one the protobuf codec uses (api/protobuf/go-values.ts).
 */
import { formatGoDuration, parseGoDuration } from '../api/protobuf/go-values.js';

/** A commander argParser for a non-negative duration flag: milliseconds, or an Error naming the value. */
export function durationFlag(value: string): number {
  const ns = parseGoDuration(value.trim());
  if (ns === undefined) throw new Error(`invalid duration "${value}": use a number with a unit (ns, us, ms, s, m, h), e.g. 40s, 5m or 1h30m`);
  if (ns < 0) throw new Error(`invalid duration "${value}": must not be negative`);
  return ns / 1e6;
}

/** The Go spelling of a duration in milliseconds (`40s`, `1h30m0s`), for help texts. */
export const formatDurationMs = (ms: number): string => formatGoDuration(Math.round(ms * 1e6));
