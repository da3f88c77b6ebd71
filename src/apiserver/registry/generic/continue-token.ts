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

export function decodeContinueToken(prefix: string, token: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken();
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalidToken();
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== 'meta.k8s.io/v1') throw badRequest('continue key is not valid: server does not recognize this encoded key');
  if (typeof rv !== 'number' || !Number.isInteger(rv) || typeof start !== 'string' || start.length === 0) throw invalidToken();
  // Keys never contain "..": a token must not reach outside the resource's prefix.
  if (start.includes('..') || start.startsWith('/')) throw invalidToken();
  const relative = start.endsWith('\u0000') ? start.slice(0, -1) : start;
  return { revision: rv, afterKey: `${prefix}${relative}` };
}

function invalidToken() {
  return badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}
