/**
 * Kubernetes' list library (isSorted, sum, min, max, indexOf, lastIndexOf)
 * and cel-go's lists extension (slice, flatten, distinct, reverse, sort,
 * first, last, lists.range) as Kubernetes declares them.
 */
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from './library-errors.js';

class ListsNamespace {}

const MAX_RANGE = 100_000n;

type Comparable = bigint | number | string | boolean;

function compare(a: unknown, b: unknown): number {
  if (!isComparable(a) || !isComparable(b) || typeof a === 'boolean' !== (typeof b === 'boolean') || (typeof a === 'string') !== (typeof b === 'string')) {
    throw new CelFunctionError('no such overload');
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

const isComparable = (v: unknown): v is Comparable => ['bigint', 'number', 'string', 'boolean'].includes(typeof v);

function equal(a: unknown, b: unknown): boolean {
  if (typeof a === 'bigint' || typeof a === 'number') return (typeof b === 'bigint' || typeof b === 'number') && a == b; // eslint-disable-line eqeqeq
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (a !== null && typeof a === 'object') {
    if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

function extreme(list: readonly unknown[], name: string, sign: number): unknown {
  if (list.length === 0) throw new CelFunctionError(`${name} called on empty list`);
  return list.reduce((best, v) => (compare(v, best) * sign > 0 ? v : best));
}

function sum(list: readonly unknown[]): unknown {
  if (list.length === 0) return 0n;
  return list.reduce((acc: unknown, v) => {
    if (typeof acc === 'bigint' && typeof v === 'bigint') return acc + v;
    if (typeof acc === 'number' && typeof v === 'number') return acc + v;
    throw new CelFunctionError('no such overload');
  });
}

function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new CelFunctionError('level must be non-negative');
  const out: unknown[] = [];
  for (const v of list) {
    if (Array.isArray(v) && depth > 0n) out.push(...flatten(v, depth - 1n));
    else out.push(v);
  }
  return out;
}

function slice(list: readonly unknown[], start: bigint, end: bigint): unknown[] {
  if (start < 0n || end < 0n) throw new CelFunctionError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new CelFunctionError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (end > BigInt(list.length)) throw new CelFunctionError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

export function registerListsLibrary(env: Environment): void {
  env
    .registerFunction('list<dyn>.isSorted(): bool', (l: unknown[]) => l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0))
    .registerFunction('list<dyn>.sum(): dyn', sum)
    .registerFunction('list<dyn>.min(): dyn', (l: unknown[]) => extreme(l, 'min', -1))
    .registerFunction('list<dyn>.max(): dyn', (l: unknown[]) => extreme(l, 'max', 1))
    .registerFunction('list<dyn>.indexOf(dyn): int', (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => equal(x, v))))
    .registerFunction('list<dyn>.lastIndexOf(dyn): int', (l: unknown[], v: unknown) => {
      for (let i = l.length - 1; i >= 0; i--) if (equal(l[i], v)) return BigInt(i);
      return -1n;
    })
    .registerFunction('list<dyn>.slice(int, int): list<dyn>', slice)
    .registerFunction('list<dyn>.flatten(): list<dyn>', (l: unknown[]) => flatten(l, 1n))
    .registerFunction('list<dyn>.flatten(int): list<dyn>', flatten)
    .registerFunction('list<dyn>.distinct(): list<dyn>', (l: unknown[]) => l.filter((v, i) => l.findIndex((x) => equal(x, v)) === i))
    .registerFunction('list<dyn>.reverse(): list<dyn>', (l: unknown[]) => [...l].reverse())
    .registerFunction('list<dyn>.sort(): list<dyn>', (l: unknown[]) => [...l].sort(compare))
    .registerFunction('list<dyn>.first(): optional<dyn>', (l: unknown[]) => (l.length === 0 ? Optional.none() : Optional.of(l[0])))
    .registerFunction('list<dyn>.last(): optional<dyn>', (l: unknown[]) => (l.length === 0 ? Optional.none() : Optional.of(l[l.length - 1])))
    .registerType('ListsNamespace', ListsNamespace)
    .registerConstant('lists', 'ListsNamespace', new ListsNamespace())
    .registerFunction('ListsNamespace.range(int): list<int>', (_ns: ListsNamespace, n: bigint) => {
      // No cost budget here (upstream estimates and limits cost): a bound keeps one expression from exhausting memory.
      if (n > MAX_RANGE) throw new CelFunctionError(`lists.range(${n}) exceeds the limit of ${MAX_RANGE} elements`);
      return Array.from({ length: Math.max(Number(n), 0) }, (_, i) => BigInt(i));
    });
}

export { equal as celEqual };
