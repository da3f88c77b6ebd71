/**
 * The JSON forms Go gives the apimachinery value types that protobuf carries
 * as numbers: metav1.Time (RFC 3339, whole seconds, UTC), metav1.MicroTime
 * (RFC 3339 with microseconds, UTC) and metav1.Duration (time.Duration's
 * String form, e.g. "1h2m3.5s").
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Seconds since the epoch and nanoseconds of an RFC 3339 timestamp; undefined when malformed. */
export function parseRfc3339(text: string): { seconds: number; nanos: number } | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number(y) < 100) ms = new Date(ms).setUTCFullYear(Number(y));
  if (Number.isNaN(ms)) return undefined;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  const nanos = fraction === undefined ? 0 : Number(fraction.slice(0, 9).padEnd(9, '0'));
  return { seconds: Math.floor(ms / 1000), nanos };
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** metav1.Time as JSON: `2006-01-02T15:04:05Z`. */
export function formatTime(seconds: number): string {
  return `${isoSeconds(seconds)}Z`;
}

/** metav1.MicroTime as JSON: `2006-01-02T15:04:05.000000Z`. */
export function formatMicroTime(seconds: number, nanos: number): string {
  return `${isoSeconds(seconds)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A Go duration string in nanoseconds; undefined when malformed (as time.ParseDuration rejects it). */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([-+]?)(.*)$/.exec(text)!;
  let rest = m[2]!;
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const part = /^(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (part === null || part[1] === '' || part[1] === '.') return undefined;
    total += Number(part[1]) * UNIT_NS[part[2]!]!;
    rest = rest.slice(part[0].length);
  }
  return Math.round(m[1] === '-' ? -total : total);
}

function trimFraction(value: number, decimals: number): string {
  return value.toFixed(decimals).replace(/\.?0+$/, '');
}

/** time.Duration.String of a count of nanoseconds. */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const abs = Math.abs(ns);
  if (abs < 1e3) return `${sign}${abs}ns`;
  if (abs < 1e6) return `${sign}${trimFraction(abs / 1e3, 3)}µs`;
  if (abs < 1e9) return `${sign}${trimFraction(abs / 1e6, 6)}ms`;
  const hours = Math.floor(abs / 3600e9);
  const minutes = Math.floor((abs % 3600e9) / 60e9);
  const seconds = trimFraction((abs % 60e9) / 1e9, 9);
  return `${sign}${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}
