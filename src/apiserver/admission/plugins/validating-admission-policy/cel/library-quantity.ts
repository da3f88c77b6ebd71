/**
 * Kubernetes' quantity library: quantity(), isQuantity() and the Quantity
 * methods sign, isInteger, asInteger, asApproximateFloat, compareTo,
 * isLessThan, isGreaterThan, add and sub. A Quantity holds its exact value in
 * nano units (upstream keeps nothing finer), so comparisons are exact.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from './library-errors.js';

const PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/;
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const NANO = 10n ** 9n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

class Quantity {
  constructor(readonly nanos: bigint) {}
}

function parseQuantity(text: string): Quantity | undefined {
  const m = PATTERN.exec(text);
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let numerator = BigInt((whole === '' ? '0' : whole) + fraction);
  let exponent = -fraction.length;
  if (DECIMAL[suffix] !== undefined) exponent += DECIMAL[suffix]!;
  else if (BINARY[suffix] !== undefined) numerator *= 1n << BigInt(10 * BINARY[suffix]!);
  else if (/^[eE][+-]?\d+$/.test(suffix)) exponent += Number.parseInt(suffix.slice(1), 10);
  else return undefined;
  // To nano units, rounding a finer value up (away from zero), as upstream.
  const shift = exponent + 9;
  let nanos: bigint;
  if (shift >= 0) nanos = numerator * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    nanos = numerator / divisor + (numerator % divisor === 0n ? 0n : 1n);
  }
  return new Quantity(sign === '-' ? -nanos : nanos);
}

function quantity(text: string): Quantity {
  const q = parseQuantity(text);
  if (q === undefined) throw new CelFunctionError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  return q;
}

const toNanos = (v: Quantity | bigint): bigint => (v instanceof Quantity ? v.nanos : v * NANO);
const compare = (a: Quantity, b: Quantity): bigint => (a.nanos < b.nanos ? -1n : a.nanos > b.nanos ? 1n : 0n);

export function registerQuantityLibrary(env: Environment): void {
  env
    .registerType('Quantity', Quantity)
    .registerFunction('quantity(string): Quantity', quantity)
    .registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined)
    .registerFunction('Quantity.sign(): int', (q: Quantity) => (q.nanos > 0n ? 1n : q.nanos < 0n ? -1n : 0n))
    .registerFunction('Quantity.isInteger(): bool', (q: Quantity) => q.nanos % NANO === 0n && q.nanos / NANO <= INT64_MAX && q.nanos / NANO >= INT64_MIN)
    .registerFunction('Quantity.asInteger(): int', (q: Quantity) => {
      if (q.nanos % NANO !== 0n || q.nanos / NANO > INT64_MAX || q.nanos / NANO < INT64_MIN) throw new CelFunctionError('cannot convert value to integer');
      return q.nanos / NANO;
    })
    .registerFunction('Quantity.asApproximateFloat(): double', (q: Quantity) => Number(q.nanos) / 1e9)
    .registerFunction('Quantity.compareTo(Quantity): int', compare)
    .registerFunction('Quantity.isLessThan(Quantity): bool', (a: Quantity, b: Quantity) => compare(a, b) < 0n)
    .registerFunction('Quantity.isGreaterThan(Quantity): bool', (a: Quantity, b: Quantity) => compare(a, b) > 0n)
    .registerFunction('Quantity.add(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(a.nanos + toNanos(b)))
    .registerFunction('Quantity.add(int): Quantity', (a: Quantity, b: bigint) => new Quantity(a.nanos + toNanos(b)))
    .registerFunction('Quantity.sub(Quantity): Quantity', (a: Quantity, b: Quantity) => new Quantity(a.nanos - toNanos(b)))
    .registerFunction('Quantity.sub(int): Quantity', (a: Quantity, b: bigint) => new Quantity(a.nanos - toNanos(b)));
}
