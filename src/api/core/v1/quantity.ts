/**
 * Resource quantities (`500m`, `1Gi`, `1e3`) read exactly, to compare and add
 * them as upstream's resource.Quantity does: the value is kept in nano units
 * (upstream keeps nothing finer), rounded up.
 */

const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?([a-zA-Z]*|[eE][+-]?\d+)$/;

/**
 * Readings of recent texts: a cluster's objects repeat a few quantities
 * (`100m`, `64Mi`) in every pod, and validation, defaulting, quota and the
 * scheduler each read them; a reading costs a regular expression and BigInt
 * arithmetic. Bounded: cleared when full.
 */
const readings = new Map<string, bigint | undefined>();
const MAX_READINGS = 4096;

/** A quantity's value in units of 10^-9, or undefined when the text is not a quantity. */
export function parseQuantityNanos(text: string | number): bigint | undefined {
  const s = typeof text === 'number' ? String(text) : text;
  const known = readings.get(s);
  if (known !== undefined || readings.has(s)) return known;
  const value = readQuantityNanos(s);
  if (readings.size >= MAX_READINGS) readings.clear();
  readings.set(s, value);
  return value;
}

function readQuantityNanos(s: string): bigint | undefined {
  const m = QUANTITY.exec(s);
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let mantissa = BigInt(`${whole || '0'}${fraction}`);
  let scale = -fraction.length;
  if (DECIMAL[suffix] !== undefined) scale += DECIMAL[suffix]!;
  else if (BINARY[suffix] !== undefined) mantissa <<= BigInt(BINARY[suffix]!);
  else if (/^[eE][+-]?\d+$/.test(suffix)) scale += Number.parseInt(suffix.slice(1), 10);
  else return undefined;
  // To nano units, rounding up what is finer.
  const shift = scale + 9;
  let nanos: bigint;
  if (shift >= 0) nanos = mantissa * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    nanos = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
  }
  return sign === '-' ? -nanos : nanos;
}

/** Whether the text is a valid quantity. */
export function isQuantity(text: unknown): boolean {
  return (typeof text === 'string' || typeof text === 'number') && parseQuantityNanos(text) !== undefined;
}
