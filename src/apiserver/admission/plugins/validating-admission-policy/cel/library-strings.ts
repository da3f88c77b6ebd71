/**
 * cel-go's strings extension (version 2, as Kubernetes declares it) beyond
 * what cel-js has built in (lowerAscii, upperAscii, split, join, trim,
 * indexOf, lastIndexOf, substring): charAt, replace, reverse, format and
 * strings.quote.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelFunctionError } from './library-errors.js';

class StringsNamespace {}

const codePoints = (s: string): string[] => Array.from(s);

function charAt(s: string, index: bigint): string {
  const chars = codePoints(s);
  const i = Number(index);
  if (i < 0 || i > chars.length) throw new CelFunctionError(`index out of range: ${i}`);
  return chars[i] ?? '';
}

function replace(s: string, from: string, to: string, limit: bigint): string {
  if (limit < 0n) return s.split(from).join(to);
  let out = '';
  let rest = s;
  for (let n = 0n; n < limit; n += 1n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + Math.max(from.length, 0));
    if (from === '') {
      out += rest.slice(0, 1);
      rest = rest.slice(1);
    }
  }
  return out + rest;
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\f': out += '\\f'; break;
      case '\b': out += '\\b'; break;
      case '\v': out += '\\v'; break;
      case '\x07': out += '\\a'; break;
      default: out += ch;
    }
  }
  return `${out}"`;
}

function formatValue(verb: string, precision: number | undefined, value: unknown): string {
  switch (verb) {
    case 's':
      return stringOf(value);
    case 'd':
      if (typeof value === 'bigint') return value.toString();
      if (typeof value === 'number' && Number.isInteger(value)) return String(value);
      throw new CelFunctionError(`error during formatting: decimal clause can only be used on integers, was given ${typeName(value)}`);
    case 'f':
    case 'e':
      if (typeof value !== 'number' && typeof value !== 'bigint') throw new CelFunctionError(`error during formatting: fixed-point clause can only be used on doubles, was given ${typeName(value)}`);
      return verb === 'f' ? Number(value).toFixed(precision ?? 6) : Number(value).toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
    case 'x':
    case 'X': {
      const text = typeof value === 'string' ? Buffer.from(value).toString('hex') : typeof value === 'bigint' ? value.toString(16) : undefined;
      if (text === undefined) throw new CelFunctionError(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(value)}`);
      return verb === 'X' ? text.toUpperCase() : text;
    }
    case 'o':
    case 'b':
      if (typeof value !== 'bigint') throw new CelFunctionError(`error during formatting: only integers can be formatted as ${verb === 'o' ? 'octal' : 'binary'}, was given ${typeName(value)}`);
      return value.toString(verb === 'o' ? 8 : 2);
    default:
      throw new CelFunctionError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'list';
  return 'map';
}

function stringOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}` : String(value);
  if (Array.isArray(value)) return `[${value.map(stringOf).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${stringOf(k)}: ${stringOf(v)}`).join(', ')}}`;
  return String(value);
}

function format(template: string, args: readonly unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    const m = /^%(?:\.(\d+))?([a-zA-Z%])/.exec(template.slice(i));
    if (m === null) throw new CelFunctionError('could not parse formatting clause: unexpected end of string');
    i += m[0].length - 1;
    if (m[2] === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) throw new CelFunctionError(`index ${next} out of range`);
    out += formatValue(m[2]!, m[1] === undefined ? undefined : Number(m[1]), args[next++]);
  }
  return out;
}

export function registerStringsLibrary(env: Environment): void {
  env
    .registerFunction('string.charAt(int): string', charAt)
    .registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) => replace(s, from, to, -1n))
    .registerFunction('string.replace(string, string, int): string', replace)
    .registerFunction('string.reverse(): string', (s: string) => codePoints(s).reverse().join(''))
    .registerFunction('string.format(list<dyn>): string', format)
    .registerType('StringsNamespace', StringsNamespace)
    .registerConstant('strings', 'StringsNamespace', new StringsNamespace())
    .registerFunction('StringsNamespace.quote(string): string', (_ns: StringsNamespace, s: string) => quote(s));
}
