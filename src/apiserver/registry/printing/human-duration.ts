/**
 * Durations as kubectl shows them in AGE and similar columns: two or three
 * significant figures, the rules of upstream's HumanDuration
 * (k8s.io/apimachinery/pkg/util/duration).
 *
 * @example
 * humanDuration(45_000);                  // '45s'
 * humanDuration((5 * 60 + 10) * 1000);    // '5m10s'
 * humanDuration((51 * 3600) * 1000);      // '2d3h'
 * humanDuration(-5_000);                  // '<invalid>'
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Formats a duration given in milliseconds. */
export function humanDuration(ms: number): string {
  // Up to a second and a bit in the future counts as now (clock skew).
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;

  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;

  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}
