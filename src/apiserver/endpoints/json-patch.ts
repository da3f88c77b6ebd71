/**
 * JSON patch (RFC 6902) with the semantics of the library upstream's API
 * server applies it with (evanphx/json-patch v4), which differ from the RFC's
 * in ways a client can see:
 *
 * - `remove`, `move` and `copy` of a missing member fail, but `replace` of a
 *   missing member of an object succeeds (it adds it);
 * - a `null` member counts as missing when a path goes through it;
 * - negative array indices count from the end;
 * - a path is split on `/` without checking that it starts with one.
 *
 * `applyJsonPatch` returns the patched document or the library's error text;
 * the API server answers every such error with one generic 422 (patch.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { deepCopy } from '../../machinery/meta.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };

/** An operation as decoded: any JSON object (DecodePatch accepts any members). */
export type JsonPatchOperation = Record<string, unknown>;

class PatchFailure extends Error {}

const fail = (message: string): never => {
  throw new PatchFailure(message);
};

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** Go's strconv.Atoi over a token, or undefined. */
function atoi(key: string): number | undefined {
  return /^[+-]?\d+$/.test(key) ? Number(key) : undefined;
}

const decodeKey = (k: string): string => k.replaceAll('~1', '/').replaceAll('~0', '~');

/** The member at `key` (undefined when missing or null); throws on a bad array index. */
function get(c: Container, key: string): Json | undefined {
  if (!Array.isArray(c)) return Object.hasOwn(c, key) && c[key] !== null ? c[key] : undefined;
  let idx = atoi(key);
  if (idx === undefined) return fail(`strconv.Atoi: parsing "${key}": invalid syntax`);
  if (idx < 0) {
    if (idx < -c.length) return fail(`Unable to access invalid index: ${idx}: invalid index referenced`);
    idx += c.length;
  }
  if (idx >= c.length) return fail(`Unable to access invalid index: ${idx}: invalid index referenced`);
  return c[idx] ?? undefined;
}

function add(c: Container, key: string, value: Json): void {
  if (!Array.isArray(c)) {
    c[key] = value;
    return;
  }
  if (key === '-') {
    c.push(value);
    return;
  }
  let idx = atoi(key);
  if (idx === undefined) return fail(`value was not a proper array index: '${key}': strconv.Atoi: parsing "${key}": invalid syntax`);
  const size = c.length + 1;
  if (idx >= size) return fail(`Unable to access invalid index: ${idx}: invalid index referenced`);
  if (idx < 0) {
    if (idx < -size) return fail(`Unable to access invalid index: ${idx}: invalid index referenced`);
    idx += size;
  }
  c.splice(idx, 0, value);
}

function remove(c: Container, key: string): void {
  if (!Array.isArray(c)) {
    if (!Object.hasOwn(c, key)) return fail(`Unable to remove nonexistent key: ${key}: missing value`);
    delete c[key];
    return;
  }
  let idx = atoi(key);
  if (idx === undefined) return fail(`strconv.Atoi: parsing "${key}": invalid syntax`);
  if (idx >= c.length) return fail(`Unable to access invalid index: ${idx}: invalid index referenced`);
  if (idx < 0) {
    if (idx < -c.length) return fail(`Unable to access invalid index: ${idx}: invalid index referenced`);
    idx += c.length;
  }
  c.splice(idx, 1);
}

function set(c: Container, key: string, value: Json): void {
  if (!Array.isArray(c)) {
    c[key] = value;
    return;
  }
  let idx = atoi(key) ?? fail(`strconv.Atoi: parsing "${key}": invalid syntax`);
  if (idx < 0) idx += c.length;
  c[idx] = value;
}

/** The container a path's last token lives in, and that token (upstream's findObject). */
function findObject(doc: Container, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let con: Container = doc;
  for (const part of split.slice(1, -1)) {
    let next: Json | undefined;
    try {
      next = get(con, decodeKey(part));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    con = next;
  }
  return { con, key: decodeKey(split[split.length - 1]!) };
}

function stringMember(op: JsonPatchOperation, name: 'path' | 'from'): string | undefined {
  const v = op[name];
  return typeof v === 'string' ? v : undefined;
}

const valueOf = (op: JsonPatchOperation): Json => (op.value ?? null) as Json;

function applyOne(root: { doc: Container }, op: JsonPatchOperation): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = stringMember(op, 'path');
  const wrap = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (e: unknown) {
      if (e instanceof PatchFailure) fail(`${what}: ${e.message}`);
      throw e;
    }
  };
  switch (kind) {
    case 'add': {
      if (path === undefined) return fail('add operation failed to decode path: missing value');
      const at = findObject(root.doc, path) ?? fail(`add operation does not apply: doc is missing path: "${path}": missing value`);
      return wrap(`error in add for path: '${path}'`, () => add(at.con, at.key, deepCopy(valueOf(op))));
    }
    case 'remove': {
      if (path === undefined) return fail('remove operation failed to decode path: missing value');
      const at = findObject(root.doc, path) ?? fail(`remove operation does not apply: doc is missing path: "${path}": missing value`);
      return wrap(`error in remove for path: '${path}'`, () => remove(at.con, at.key));
    }
    case 'replace': {
      if (path === undefined) return fail('replace operation failed to decode path');
      if (path === '') {
        const value = valueOf(op);
        if (!isContainer(value)) return fail('replace operation value must be object or array');
        root.doc = deepCopy(value);
        return;
      }
      const at = findObject(root.doc, path) ?? fail(`replace operation does not apply: doc is missing path: ${path}: missing value`);
      if (Array.isArray(at.con)) {
        try {
          get(at.con, at.key);
        } catch {
          return fail(`replace operation does not apply: doc is missing key: ${path}: missing value`);
        }
      }
      return set(at.con, at.key, deepCopy(valueOf(op)));
    }
    case 'move': {
      const from = stringMember(op, 'from') ?? fail('move operation failed to decode from');
      const src = findObject(root.doc, from) ?? fail(`move operation does not apply: doc is missing from path: ${from}: missing value`);
      let value: Json | undefined;
      wrap(`error in move for path: '${src.key}'`, () => {
        value = get(src.con, src.key);
        remove(src.con, src.key);
      });
      if (path === undefined) return fail('move operation failed to decode path');
      const dst = findObject(root.doc, path) ?? fail(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
      return wrap(`error in move for path: '${path}'`, () => add(dst.con, dst.key, value ?? null));
    }
    case 'copy': {
      const from = stringMember(op, 'from') ?? fail('copy operation failed to decode from');
      const src = findObject(root.doc, from) ?? fail(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
      let value: Json | undefined;
      wrap(`error in copy for from: '${from}'`, () => {
        value = get(src.con, src.key);
      });
      if (path === undefined) return fail('copy operation failed to decode path: missing value');
      const dst = findObject(root.doc, path) ?? fail(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
      return wrap('error while adding value during copy', () => add(dst.con, dst.key, deepCopy(value ?? null)));
    }
    case 'test': {
      if (path === undefined) return fail('test operation failed to decode path');
      const expected = valueOf(op);
      if (path === '') {
        if (isDeepStrictEqual(root.doc, expected)) return;
        return fail(`testing value ${path} failed: test failed`);
      }
      const at = findObject(root.doc, path) ?? fail(`test operation does not apply: is missing path: ${path}: missing value`);
      let actual: Json | undefined;
      wrap(`error in test for path: '${path}'`, () => {
        actual = get(at.con, at.key);
      });
      if ((actual ?? null) === null ? expected === null : isDeepStrictEqual(actual, expected)) return;
      return fail(`testing value ${path} failed: test failed`);
    }
    default:
      return fail(`Unexpected kind: ${kind}`);
  }
}

/** The document with the operations applied in order (the input is not changed), or the first failure's text. */
export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[]): { ok: true; value: unknown } | { ok: false; error: string } {
  const root = { doc: deepCopy(document) as Container };
  try {
    for (const op of operations) applyOne(root, op ?? {});
  } catch (e: unknown) {
    if (e instanceof PatchFailure) return { ok: false, error: e.message };
    throw e;
  }
  return { ok: true, value: root.doc };
}
