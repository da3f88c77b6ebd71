/** cel-go's sets extension: sets.contains, sets.equivalent, sets.intersects. */
import type { Environment } from '@marcbachmann/cel-js';
import { celEqual } from './library-lists.js';

class SetsNamespace {}

const contains = (list: readonly unknown[], sub: readonly unknown[]): boolean => sub.every((v) => list.some((x) => celEqual(x, v)));

export function registerSetsLibrary(env: Environment): void {
  env
    .registerType('SetsNamespace', SetsNamespace)
    .registerConstant('sets', 'SetsNamespace', new SetsNamespace())
    .registerFunction('SetsNamespace.contains(list<dyn>, list<dyn>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => contains(a, b))
    .registerFunction('SetsNamespace.equivalent(list<dyn>, list<dyn>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a))
    .registerFunction('SetsNamespace.intersects(list<dyn>, list<dyn>): bool', (_ns: SetsNamespace, a: unknown[], b: unknown[]) => b.some((v) => a.some((x) => celEqual(x, v))));
}
