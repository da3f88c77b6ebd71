/**
 * The opaque `continue` token of a paged list, in upstream's format so that
 * tokens look the same: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<next key>"},
 * where start is the key after the resource's prefix plus "\u0000" (the first
 * key strictly after the last one returned). rv -1 marks an inconsistent
 * continuation, offered after the original revision was compacted.
 */
import { badRequest } from '../../../machinery/status.js';

export interface ContinueToken {
  /** The revision every page is read at; -1 means "the current one". */
  readonly revision: number;
  /** Continue strictly after this full key. */
  readonly afterKey: string;
}

export function encodeContinueToken(prefix: string, lastKey: string, revision: number): string {
  if (!lastKey.startsWith(prefix)) throw new Error(`key ${lastKey} is not under ${prefix}`);
  const start = `${lastKey.slice(prefix.length)}\u0000`;
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start }), 'utf8').toString('base64url');
}

/**
 * A token decoded as upstream's DecodeContinue does, each failure a 400
 * "invalid continue token: continue key is not valid…" with upstream's
 * reason (the base64 or JSON detail is ours; Go words it its own way).
 */
export function decodeContinueToken(prefix: string, token: string): ContinueToken {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) {
    const at = token.search(/[^A-Za-z0-9_-]/);
    throw invalidToken(`${GENERIC}: illegal base64 data at input byte ${at >= 0 ? at : token.length - 1}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (e: unknown) {
    throw invalidToken(`${GENERIC}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidToken(`${GENERIC}: json: cannot unmarshal ${jsonType(parsed)} into Go value of type storage.continueToken`);
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  for (const [field, value, type] of [['v', v, 'string'], ['rv', rv, 'number'], ['start', start, 'string']] as const) {
    if (value !== undefined && value !== null && (typeof value !== type || (type === 'number' && !Number.isInteger(value)))) {
      throw invalidToken(`${GENERIC}: json: cannot unmarshal ${jsonType(value)} into Go struct field continueToken.${field} of type ${type === 'number' ? 'int64' : 'string'}`);
    }
  }
  if (v !== 'meta.k8s.io/v1') throw invalidToken(`continue key is not valid: server does not recognize this encoded version ${typeof v === 'string' ? v : ''}`);
  if (typeof rv !== 'number' || rv === 0) throw invalidToken('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || start === '') throw invalidToken('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // As upstream's path.Clean check: a token must not reach outside the resource's prefix.
  const key = start.startsWith('/') ? start : `/${start}`;
  const segments = key.slice(1).split('/');
  if (key !== '/' && segments.some((seg) => seg === '' || seg === '.' || seg === '..')) throw invalidToken(`${GENERIC}: ${start}`);
  const relative = key.slice(1);
  return { revision: rv, afterKey: `${prefix}${relative.endsWith('\u0000') ? relative.slice(0, -1) : relative}` };
}

const GENERIC = 'continue key is not valid';

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

function invalidToken(detail: string) {
  return badRequest(`invalid continue token: ${detail}`);
}
