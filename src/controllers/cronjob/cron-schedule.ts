/**
 * When a CronJob's schedule fires next, with the semantics of robfig/cron v3
 * (the parser upstream uses; src/api/batch/v1/cron-schedule.ts validates the
 * same grammar): five fields or a descriptor (@hourly, …, @every DURATION),
 * an optional TZ=/CRON_TZ= prefix, and day-of-month/day-of-week combined
 * with OR unless either field starts with `*` or `?` (then AND). Times are
 * matched on the wall clock of the schedule's time zone; a wall time that a
 * DST change skips does not fire.
 *
 * Written here rather than taken from npm: cron-parser (5.x) brings luxon
 * and differs from robfig in the star rule and has no @every; the standard
 * parser is small.
 */
import { goDurationError, isKnownTimeZone, parseCronSchedule } from '../../api/batch/v1/cron-schedule.js';

export interface CronSchedule {
  /** The first firing strictly after `afterMs` (ms since epoch), or undefined when none within five years. */
  next(afterMs: number): number | undefined;
  readonly timeZone: string;
}

interface FieldSpec {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const FIELDS: readonly FieldSpec[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } },
  { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } },
];

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface Field {
  readonly values: ReadonlySet<number>;
  /** robfig's star bit: the field started with `*` or `?` and had no step above 1. */
  readonly star: boolean;
}

function parseField(text: string, spec: FieldSpec): Field {
  const values = new Set<number>();
  let star = false;
  for (const expr of text.split(',').filter((e) => e !== '')) {
    const [range, stepText] = expr.split('/');
    const [low, high] = range!.split('-');
    const value = (t: string): number => spec.names?.[t.toLowerCase()] ?? Number.parseInt(t, 10);
    let start: number;
    let end: number;
    let exprStar = false;
    if (low === '*' || low === '?') {
      start = spec.min;
      end = spec.max;
      exprStar = true;
    } else {
      start = value(low!);
      end = high === undefined ? start : value(high);
    }
    let step = 1;
    if (stepText !== undefined) {
      step = Number.parseInt(stepText, 10);
      if (high === undefined && !exprStar) end = spec.max;
      if (step > 1) exprStar = false;
    }
    for (let v = start; v <= end; v += step) values.add(v);
    star ||= exprStar;
  }
  return { values, star };
}

/** Go duration text to milliseconds (the schedule's @every). */
export function parseGoDurationMs(text: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const re = /(\d*\.?\d*)([a-zµμ]+)/g;
  for (const m of text.replace(/^[+-]/, '').matchAll(re)) total += Number.parseFloat(m[1]!) * (units[m[2]!] ?? 0);
  return sign * total;
}

export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
}

/** Parse a schedule (upstream's cron.ParseStandard of the formatted schedule); throws ScheduleError with robfig's message. */
export function parseSchedule(schedule: string, timeZone?: string): CronSchedule {
  const error = parseCronSchedule(schedule);
  if (error !== undefined) throw new ScheduleError(error);
  let spec = schedule.trim();
  let zone = timeZone ?? 'UTC';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    zone = spec.slice(spec.indexOf('=') + 1, space);
    spec = spec.slice(space + 1).trim();
  }
  if (zone === '') zone = 'UTC';
  if (!isKnownTimeZone(zone)) throw new ScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
  if (spec.startsWith('@every ')) {
    const durationText = spec.slice('@every '.length);
    const durationError = goDurationError(durationText);
    if (durationError !== undefined) throw new ScheduleError(durationError);
    const delay = Math.max(1000, Math.floor(parseGoDurationMs(durationText) / 1000) * 1000);
    return { timeZone: zone, next: (after) => after - (((after % 1000) + 1000) % 1000) + delay };
  }
  const text = DESCRIPTORS[spec] ?? spec;
  const fields = text.split(/\s+/).filter((f) => f !== '').map((f, i) => parseField(f, FIELDS[i]!));
  return newSpecSchedule(fields, zone);
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock of an instant in a zone, as a "UTC" timestamp of that wall time (minutes precision). */
function wallClock(ms: number, zone: string): number {
  if (zone === 'UTC') return Math.floor(ms / 60_000) * 60_000;
  const parts: Record<string, number> = {};
  for (const p of formatterFor(zone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number.parseInt(p.value, 10);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
}

/** The UTC offset of a zone at an instant, in ms. */
export function zoneOffsetMs(ms: number, zone: string): number {
  return wallClock(ms, zone) - Math.floor(ms / 60_000) * 60_000;
}

/** The earliest instant whose wall clock in the zone is `wall`, or undefined when DST skips that wall time. */
function instantOfWall(wall: number, zone: string): number | undefined {
  if (zone === 'UTC') return wall;
  const candidates = new Set<number>();
  for (const probe of [wall - 86_400_000, wall, wall + 86_400_000]) candidates.add(wall - zoneOffsetMs(probe, zone));
  const valid = [...candidates].filter((t) => wallClock(t, zone) === wall).sort((a, b) => a - b);
  return valid[0];
}

function newSpecSchedule(fields: readonly Field[], zone: string): CronSchedule {
  const [minute, hour, dom, month, dow] = fields as [Field, Field, Field, Field, Field];
  const dayMatches = (d: Date): boolean => {
    const domMatch = dom.values.has(d.getUTCDate());
    const dowMatch = dow.values.has(d.getUTCDay());
    return dom.star || dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  };
  return {
    timeZone: zone,
    next(after) {
      const limit = after + 5 * 366 * 86_400_000;
      // Start at the next whole minute after `after`, on the zone's wall clock.
      let wall = wallClock(after, zone) + 60_000;
      for (let guard = 0; guard < 200_000; guard++) {
        if (wall - 14 * 3_600_000 > limit) return undefined;
        const d = new Date(wall);
        if (!month.values.has(d.getUTCMonth() + 1)) {
          wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
          continue;
        }
        if (!dayMatches(d)) {
          wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
          continue;
        }
        if (!hour.values.has(d.getUTCHours())) {
          wall = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
          continue;
        }
        if (!minute.values.has(d.getUTCMinutes())) {
          wall += 60_000;
          continue;
        }
        const instant = instantOfWall(wall, zone);
        if (instant !== undefined && instant > after) return instant;
        wall += 60_000;
      }
      return undefined;
    },
  };
}
