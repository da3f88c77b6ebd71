/**
 * Arithmetic on resource lists (`{ cpu: '500m', memory: '1Gi' }`) as upstream's
 * k8s.io/apiserver/pkg/quota/v1 helpers do it: exact values (nano units, as
 * bigints), and results printed as `Quantity.String()` prints them, keeping the
 * binary or decimal format of the left-hand side (of the right when the left is zero).
 */
import { canonicalQuantity } from '../../machinery/quantity.js';

export type ResourceList = Readonly<Record<string, string>>;

/** An exact amount: the value × 10^9, and whether it prints with binary suffixes (Ki, Mi, …). */
export interface Amount {
  readonly nano: bigint;
  readonly binary: boolean;
}

const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?([a-zA-Z]*[+-]?\d*)$/;
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const NANO = 1_000_000_000n;

/** The amount of a quantity text; undefined when it does not parse. Values finer than nano round up, as upstream. */
export function parseAmount(text: string): Amount | undefined {
  const m = QUANTITY.exec(text.trim());
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let mantissa = BigInt((whole === '' ? '0' : whole) + fraction);
  let exponent = 9 - fraction.length;
  let binary = false;
  if (DECIMAL[suffix] !== undefined) exponent += DECIMAL[suffix];
  else if (BINARY[suffix] !== undefined) {
    binary = true;
    mantissa *= 1n << BigInt(10 * BINARY[suffix]);
  } else if (/^[eE][+-]?\d+$/.test(suffix)) exponent += Number.parseInt(suffix.slice(1), 10);
  else return undefined;
  let nano: bigint;
  if (exponent >= 0) nano = mantissa * 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    nano = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
  }
  return { nano: sign === '-' ? -nano : nano, binary };
}

/** Upstream's canonical text of an amount. */
export function formatAmount(amount: Amount): string {
  const { nano, binary } = amount;
  if (nano === 0n) return '0';
  if (binary && nano % NANO === 0n) {
    let integer = nano / NANO;
    if (integer <= -1024n || integer >= 1024n) {
      let power = 0;
      while (power < 6 && integer % 1024n === 0n) {
        integer /= 1024n;
        power++;
      }
      return `${integer}${BINARY_SUFFIX[power]}`;
    }
  }
  return canonicalQuantity(`${nano}n`);
}

const amountOf = (text: string | undefined): Amount => (text === undefined ? { nano: 0n, binary: false } : (parseAmount(text) ?? { nano: 0n, binary: false }));

/** The value of a quantity in nano units (0 for text that does not parse). */
export const nanoOf = (text: string | undefined): bigint => amountOf(text).nano;

function combine(a: Amount, b: Amount, sign: 1n | -1n): Amount {
  return { nano: a.nano + sign * b.nano, binary: a.nano === 0n ? b.binary : a.binary };
}

/** a + b, per resource (upstream quota.Add). */
export function addLists(a: ResourceList, b: ResourceList): Record<string, string> {
  const result: Record<string, string> = { ...a };
  for (const [name, value] of Object.entries(b)) {
    result[name] = a[name] === undefined ? value : formatAmount(combine(amountOf(a[name]), amountOf(value), 1n));
  }
  return result;
}

/** a − b per resource of a, never below zero (upstream quota.SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(a)) {
    const left = amountOf(value);
    const diff = b[name] === undefined ? left : combine(left, amountOf(b[name]), -1n);
    result[name] = diff.nano < 0n ? '0' : formatAmount(diff);
  }
  return result;
}

/** a − b per resource of either (upstream quota.Subtract). */
export function subtractLists(a: ResourceList, b: ResourceList): Record<string, string> {
  const result: Record<string, string> = { ...a };
  for (const [name, value] of Object.entries(b)) {
    result[name] = formatAmount(combine(amountOf(a[name]), amountOf(value), -1n));
  }
  return result;
}

/** Only the named resources of a list (upstream quota.Mask). */
export function maskList(list: ResourceList, names: Iterable<string>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of names) if (list[name] !== undefined) result[name] = list[name];
  return result;
}

/** The resources of a that exceed b (only those b names); none means a ≤ b (upstream quota.LessThanOrEqual). */
export function exceededResources(a: ResourceList, b: ResourceList): string[] {
  return Object.keys(a).filter((name) => b[name] !== undefined && nanoOf(a[name]) > nanoOf(b[name]));
}

/** Without the zero entries (upstream quota.RemoveZeros). */
export function removeZeros(list: ResourceList): Record<string, string> {
  return Object.fromEntries(Object.entries(list).filter(([, value]) => nanoOf(value) !== 0n));
}

/** The resources with a negative amount, sorted (upstream quota.IsNegative). */
export function negativeResources(list: ResourceList): string[] {
  return Object.keys(list).filter((name) => nanoOf(list[name]) < 0n).sort();
}

/** True when both lists hold the same resources with equal amounts (upstream quota.Equals). */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((name) => b[name] !== undefined && nanoOf(a[name]) === nanoOf(b[name]));
}

/** `a=1,b=2Gi`, sorted by resource name (upstream's prettyPrint in the quota admission messages). */
export function prettyPrint(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((name) => `${name}=${formatAmount(amountOf(list[name]))}`)
    .join(',');
}

/** Each list's value canonical: what a stored status.used holds. */
export function canonicalList(list: ResourceList): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([name, value]) => [name, formatAmount(amountOf(value))]));
}
