/**
 * Request bodies as upstream's strict decoders see them, before any schema is
 * applied: a JSON document as a tree that keeps every key in document order,
 * duplicates included (JSON.parse silently keeps the last one), and a YAML
 * document with goyaml's strict error for duplicate keys.
 *
 * Upstream decodes a JSON body with sigs.k8s.io/json, which reports a
 * duplicate key as `duplicate field "spec.paused"`; a YAML body is first run
 * through goyaml's strict mode, whose duplicate-key report is one error of
 * several lines:
 *
 *     yaml: unmarshal errors:
 *       line 5: key "name" already set in map
 *       line 12: key "paused" already set in map
 *
 * and then converted to JSON through a Go map, so its keys reach the typed
 * decoder sorted (which is why upstream lists a YAML body's unknown fields in
 * key order, and a JSON body's in document order).
 *
 * @example
 * const node = parseJsonNodes('{"a":1,"a":2}');
 * duplicateFields(node); // ['duplicate field "a"']
 */
import { asGoYamlTags } from './go-yaml-tags.js';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, type Node as YamlNode } from 'yaml';
import { firstYamlDocument } from './first-yaml-document.js';
import { badRequest } from '../../machinery/status.js';
import { goQuote } from '../../machinery/validation/go-text.js';

/** A JSON value as a decoder walks it: an object keeps all its keys in document order, duplicates included. */
export type JsonNode =
  | { readonly type: 'object'; readonly entries: ReadonlyArray<readonly [string, JsonNode]> }
  | { readonly type: 'array'; readonly items: readonly JsonNode[] }
  | { readonly type: 'string'; readonly value: string }
  /** `literal` is the number as written (`1.0`, `1e3`): Go's type errors quote it. */
  | { readonly type: 'number'; readonly value: number; readonly literal: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'null' };

const NULL_NODE: JsonNode = { type: 'null' };
const TRUE_NODE: JsonNode = { type: 'boolean', value: true };
const FALSE_NODE: JsonNode = { type: 'boolean', value: false };

/**
 * Parse JSON text into a node tree (RFC 8259, as JSON.parse accepts it).
 * Throws a SyntaxError on malformed input; callers parse with JSON.parse
 * first, so that the error a client sees is the usual one.
 */
export function parseJsonNodes(text: string): JsonNode {
  const parser = new JsonNodeParser(text);
  parser.skipSpace();
  const node = parser.value(0);
  parser.skipSpace();
  if (parser.pos !== text.length) parser.fail('unexpected text after the JSON value');
  return node;
}

const MAX_DEPTH = 10_000;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

class JsonNodeParser {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(why: string): never {
    throw new SyntaxError(`${why} at position ${this.pos}`);
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  value(depth: number): JsonNode {
    if (depth > MAX_DEPTH) this.fail('JSON nested too deeply');
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return { type: 'string', value: this.string() };
      case 't':
        return this.literal('true', TRUE_NODE);
      case 'f':
        return this.literal('false', FALSE_NODE);
      case 'n':
        return this.literal('null', NULL_NODE);
      default: {
        const start = this.pos;
        const end = this.numberEnd(start);
        if (end === start) this.fail(c === undefined ? 'unexpected end of JSON input' : `unexpected character ${JSON.stringify(c)}`);
        this.pos = end;
        const literal = this.text.slice(start, end);
        return { type: 'number', value: Number(literal), literal };
      }
    }
  }

  /** The end of the number at `start` (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`), or `start` when there is none. */
  private numberEnd(start: number): number {
    const t = this.text;
    let i = start;
    const digits = (from: number): number => {
      let j = from;
      while (j < t.length && t.charCodeAt(j) >= 0x30 && t.charCodeAt(j) <= 0x39) j++;
      return j;
    };
    if (t.charCodeAt(i) === 0x2d) i++; // -
    if (t.charCodeAt(i) === 0x30) i++;
    else {
      const j = digits(i);
      if (j === i) return start;
      i = j;
    }
    if (t.charCodeAt(i) === 0x2e) {
      const j = digits(i + 1);
      if (j === i + 1) this.fail('bad number');
      i = j;
    }
    const e = t.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      let k = i + 1;
      const sign = t.charCodeAt(k);
      if (sign === 0x2b || sign === 0x2d) k++;
      const j = digits(k);
      if (j === k) this.fail('bad number');
      i = j;
    }
    return i;
  }

  private literal(word: string, node: JsonNode): JsonNode {
    if (!this.text.startsWith(word, this.pos)) this.fail(`unexpected character ${JSON.stringify(this.text[this.pos])}`);
    this.pos += word.length;
    return node;
  }

  private object(depth: number): JsonNode {
    this.pos++; // {
    const entries: Array<readonly [string, JsonNode]> = [];
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { type: 'object', entries };
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      this.skipSpace();
      entries.push([key, this.value(depth + 1)]);
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === '}') return { type: 'object', entries };
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  private array(depth: number): JsonNode {
    this.pos++; // [
    const items: JsonNode[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { type: 'array', items };
    }
    for (;;) {
      this.skipSpace();
      items.push(this.value(depth + 1));
      this.skipSpace();
      const c = this.text[this.pos++];
      if (c === ']') return { type: 'array', items };
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const t = this.text;
    const start = ++this.pos; // opening quote
    // Fast path: no escape before the closing quote.
    for (let i = start; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return t.slice(start, i);
      }
      if (c === 0x5c) break;
      if (c < 0x20) {
        this.pos = i;
        this.fail('control character in string');
      }
    }
    let out = '';
    let runStart = start;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) {
        out += t.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('control character in string');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(runStart, this.pos);
      const e = t[this.pos + 1];
      if (e === 'u') {
        const hex = t.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 6;
      } else {
        const r = e === undefined ? undefined : ESCAPES[e];
        if (r === undefined) this.fail('bad escape');
        out += r;
        this.pos += 2;
      }
      runStart = this.pos;
    }
  }
}

/**
 * A node tree for a decoded value (which has no duplicate keys). Dates (YAML
 * timestamps) become their JSON text; Maps and typed arrays are read as
 * JSON.stringify would write them.
 */
export function nodeFromValue(value: unknown): JsonNode {
  if (value === null || value === undefined) return NULL_NODE;
  switch (typeof value) {
    case 'string':
      return { type: 'string', value };
    case 'boolean':
      return value ? TRUE_NODE : FALSE_NODE;
    case 'number':
      return { type: 'number', value, literal: String(value) };
    case 'bigint':
      return { type: 'number', value: Number(value), literal: value.toString() };
    case 'object':
      break;
    default:
      return NULL_NODE;
  }
  if (Array.isArray(value)) return { type: 'array', items: value.map(nodeFromValue) };
  if (value instanceof Date) return { type: 'string', value: value.toJSON() };
  if (value instanceof Map) return { type: 'object', entries: [...value].map(([k, v]) => [String(k), nodeFromValue(v)] as const) };
  if (ArrayBuffer.isView(value)) return nodeFromValue(JSON.parse(JSON.stringify(value)) as unknown);
  return { type: 'object', entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, nodeFromValue(v)] as const) };
}

/** The plain value of a node, as JSON.parse gives it: of duplicate keys the last wins, in the first one's place. */
export function nodeToValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of node.entries) setOwn(out, k, nodeToValue(v));
      return out;
    }
    case 'array':
      return node.items.map(nodeToValue);
    case 'null':
      return null;
    default:
      return node.value;
  }
}

/** Set a property even when its name is `__proto__` (which plain assignment would treat as the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** sigs.k8s.io/json's text for a strict error: `unknown field "spec.foo"`, `duplicate field "a"`. */
export function strictFieldError(kind: 'unknown' | 'duplicate', path: string): string {
  return `${kind} field ${goQuote(path)}`;
}

/**
 * The duplicate keys of a document decoded into an untyped map (upstream's
 * `UnmarshalStrict(data, &map[string]interface{}{})`, as for a merge patch):
 * every level is checked, in document order, each path reported once.
 */
export function duplicateFields(node: JsonNode): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (n: JsonNode, path: string): void => {
    if (n.type === 'array') {
      n.items.forEach((item, i) => walk(item, `${path}[${i}]`));
    } else if (n.type === 'object') {
      const keys = new Set<string>();
      for (const [key, child] of n.entries) {
        const p = path === '' ? key : `${path}.${key}`;
        if (keys.has(key) && !seen.has(p) && out.length < 100) {
          seen.add(p);
          out.push(strictFieldError('duplicate', p));
        }
        keys.add(key);
        walk(child, p);
      }
    }
  };
  walk(node, '');
  return out;
}

/** A YAML request body decoded for strict checking. */
export interface StrictYaml {
  /** The value, as body.ts decodes YAML (YAML 1.1, merge keys), except that of duplicate keys the last wins. */
  readonly value: unknown;
  /** goyaml's strict error for duplicate keys, undefined when there are none. */
  readonly duplicateKeyError: string | undefined;
}

/**
 * Decode a YAML body like decodeDocument does, but without failing on
 * duplicate keys: upstream treats those as strict errors (a warning unless
 * fieldValidation=Strict), not as malformed YAML.
 */
export function decodeYamlStrict(text: string): StrictYaml {
  if (text.trim() === '') throw badRequest('the request body is empty');
  const lineCounter = new LineCounter();
  const doc = firstYamlDocument(text, { version: '1.1', merge: true, uniqueKeys: false, lineCounter, customTags: asGoYamlTags });
  const first = doc.errors[0];
  if (first !== undefined) throw badRequest(`error decoding the request body as YAML: ${first.message.split('\n')[0]}`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e: unknown) {
    throw badRequest(`error decoding the request body as YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const lines: string[] = [];
  if (doc.contents !== null) collectYamlDuplicates(doc.contents, lineCounter, lines);
  return { value, duplicateKeyError: lines.length === 0 ? undefined : `yaml: unmarshal errors:\n  ${lines.join('\n  ')}` };
}

/**
 * goyaml decodes a mapping's value before it stores the key, so duplicates
 * inside a value are listed before the key's own; the line is the value's.
 */
function collectYamlDuplicates(node: YamlNode, lines: LineCounter, out: string[]): void {
  if (isSeq(node)) {
    for (const item of node.items) if (isScalarOrCollection(item)) collectYamlDuplicates(item, lines, out);
    return;
  }
  if (!isMap(node)) return;
  const seen = new Set<string>();
  for (const pair of node.items) {
    if (!isPair(pair)) continue;
    const keyNode = pair.key;
    const keyValue: unknown = isScalar(keyNode) ? keyNode.value : keyNode === null || keyNode === undefined ? null : undefined;
    if (keyValue === '<<') continue; // a merge key: not an entry of its own
    const valueNode = pair.value;
    if (isScalarOrCollection(valueNode)) collectYamlDuplicates(valueNode, lines, out);
    if (keyValue === undefined) continue; // a collection as a key: goyaml fails on it differently
    const identity = `${typeof keyValue}:${String(keyValue)}`;
    if (seen.has(identity)) {
      const offset = rangeStart(valueNode) ?? rangeStart(keyNode) ?? 0;
      out.push(`line ${lines.linePos(offset).line}: key ${goSharpV(keyValue)} already set in map`);
    } else {
      seen.add(identity);
    }
  }
}

function isScalarOrCollection(n: unknown): n is YamlNode {
  return (isMap(n) || isSeq(n) || isScalar(n)) && !isAlias(n);
}

function rangeStart(n: unknown): number | undefined {
  if (n === null || n === undefined || typeof n !== 'object') return undefined;
  const range = (n as { range?: readonly number[] | null }).range;
  return range?.[0];
}

/** A YAML key as Go's `%#v` prints the decoded value: strings quoted, numbers and booleans bare, null as `<nil>`. */
function goSharpV(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (v === null) return '<nil>';
  return String(v);
}

/**
 * Upstream turns a YAML strict error into one warning per line
 * (`line 5: key "name" already set in map`); other errors stay whole.
 */
export function splitYamlWarnings(error: string): string[] {
  for (const prefix of ['yaml: unmarshal errors:\n', 'error converting YAML to JSON: yaml: unmarshal errors:\n']) {
    if (error.startsWith(prefix)) return error.slice(prefix.length).split('\n').map((s) => s.trim());
  }
  return [error];
}
