/** Go's time.ParseDuration for the durations of a configuration file (`15s`, `1m30s`, `500ms`), in milliseconds. */
const UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseGoDuration(text: string): number {
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (text === '0') return 0;
  if (match === null) throw new Error(`time: invalid duration "${text}"`);
  let total = 0;
  for (const part of text.replace(/^[+-]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNITS[part[2]!]!;
  }
  return match[1] === '-' ? -total : total;
}
