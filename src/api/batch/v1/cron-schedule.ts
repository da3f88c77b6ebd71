/**
 * The cron syntax CronJobs accept, checked as upstream checks it: with
 * robfig/cron v3's standard parser (five fields, names for months and days
 * of the week, `*`, `?`, ranges, steps, lists, and the descriptors @yearly,
 * @annually, @monthly, @weekly, @daily, @midnight, @hourly and @every
 * DURATION). `parseCronSchedule` returns the parser's error text, which
 * upstream puts in the field error as is, or undefined when it parses.
 */

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DAYS_OF_WEEK: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Whether a time zone name is one the runtime knows (Go's time.LoadLocation). */
export function isKnownTimeZone(name: string): boolean {
  if (name === 'UTC' || name === '') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The parser's error for a schedule, or undefined when it is valid. */
export function parseCronSchedule(schedule: string): string | undefined {
  let spec = schedule;
  if (spec.length === 0) return 'empty spec string';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const zone = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    if (!isKnownTimeZone(zone)) return `provided bad location ${zone}: unknown time zone ${zone}`;
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  const bounds = [MINUTES, HOURS, DAYS_OF_MONTH, MONTHS, DAYS_OF_WEEK];
  for (let i = 0; i < 5; i++) {
    const error = checkField(fields[i]!, bounds[i]!);
    if (error !== undefined) return error;
  }
  return undefined;
}

function parseDescriptor(descriptor: string): string | undefined {
  if (DESCRIPTORS.has(descriptor)) return undefined;
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    const error = goDurationError(descriptor.slice(every.length));
    return error === undefined ? undefined : `failed to parse duration ${descriptor}: ${error}`;
  }
  return `unrecognized descriptor: ${descriptor}`;
}

function checkField(field: string, bounds: Bounds): string | undefined {
  for (const expr of field.split(',').filter((e) => e !== '')) {
    const error = checkRange(expr, bounds);
    if (error !== undefined) return error;
  }
  return undefined;
}

function checkRange(expr: string, bounds: Bounds): string | undefined {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    const s = parseIntOrName(lowAndHigh[0]!, bounds.names);
    if (typeof s === 'string') return s;
    start = s;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const e = parseIntOrName(lowAndHigh[1]!, bounds.names);
      if (typeof e === 'string') return e;
      end = e;
    } else return `too many hyphens: ${expr}`;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const s = mustParseInt(rangeAndStep[1]!);
    if (typeof s === 'string') return s;
    step = s;
    if (single) end = bounds.max;
  } else if (rangeAndStep.length > 2) return `too many slashes: ${expr}`;
  if (start < bounds.min) return `beginning of range (${start}) below minimum (${bounds.min}): ${expr}`;
  if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return undefined;
}

function parseIntOrName(expr: string, names: Readonly<Record<string, number>> | undefined): number | string {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

/** Go's strconv.Atoi, then non-negative, with robfig's messages. */
function mustParseInt(expr: string): number | string {
  if (!/^[+-]?\d+$/.test(expr)) return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`;
  const n = Number.parseInt(expr, 10);
  if (!Number.isSafeInteger(n)) return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`;
  if (n < 0) return `negative number (${n}) not allowed: ${expr}`;
  return n;
}

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** Go's time.ParseDuration error for the text, or undefined when it parses. */
export function goDurationError(text: string): string | undefined {
  const quoted = JSON.stringify(text);
  let s = text;
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  if (s === '0') return undefined;
  if (s === '') return `time: invalid duration ${quoted}`;
  while (s !== '') {
    const number = /^(\d*)(\.\d*)?/.exec(s)!;
    if (number[0] === '' || number[0] === '.') return `time: invalid duration ${quoted}`;
    s = s.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    if (!DURATION_UNITS.has(unit)) return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
    s = s.slice(unit.length);
  }
  return undefined;
}
