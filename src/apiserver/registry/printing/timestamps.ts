/**
 * Timestamps in printed cells. API times are RFC 3339 strings (metav1.Time,
 * second precision; metav1.MicroTime, microseconds); an absent or unreadable
 * one is upstream's zero time and prints as `<unknown>`.
 */
import { humanDuration } from './human-duration.js';
import { UNKNOWN } from './placeholders.js';

/** Milliseconds since the epoch, or undefined for an absent or unreadable time. */
export function parseTime(timestamp: string | null | undefined): number | undefined {
  if (timestamp === undefined || timestamp === null || timestamp === '') return undefined;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : ms;
}

/** How long ago `timestamp` was at `now` (`45s`, `2d3h`), or `<unknown>` if it is unset. */
export function timeSince(timestamp: string | null | undefined, now: Date): string {
  const ms = parseTime(timestamp);
  if (ms === undefined) return UNKNOWN;
  return humanDuration(now.getTime() - ms);
}

/** The AGE cell of an object: time since its creationTimestamp. */
export function age(object: { metadata?: { creationTimestamp?: string } }, now: Date): string {
  return timeSince(object.metadata?.creationTimestamp, now);
}
