/**
 * Kubernetes' regex library: find and findAll. Patterns are RE2 in upstream
 * and JavaScript regular expressions here (the common syntax is the same; a
 * leading (?i), (?s) or (?m) flag group becomes a JavaScript flag).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from './library-errors.js';

const compiled = new Map<string, RegExp>();

export function compileRegex(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re !== undefined) return re;
  let flags = 'gu';
  let source = pattern;
  const m = /^\(\?([ims]+)\)/.exec(source);
  if (m !== null) {
    flags += m[1]!;
    source = source.slice(m[0].length);
  }
  try {
    re = new RegExp(source, flags);
  } catch (e: unknown) {
    throw new CelFunctionError(`error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const out: string[] = [];
  for (const m of s.matchAll(compileRegex(pattern))) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

export function registerRegexLibrary(env: Environment): void {
  env
    .registerFunction('string.find(string): string', (s: string, pattern: string) => findAll(s, pattern, 1n)[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) => findAll(s, pattern, -1n))
    .registerFunction('string.findAll(string, int): list<string>', findAll);
}
