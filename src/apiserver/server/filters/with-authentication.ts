/**
 * Authentication: who sent the request. For now, client certificates signed by
 * the cluster CA (CN is the user, each O a group), as upstream's x509
 * authenticator; every authenticated user is also in system:authenticated.
 * Without a valid certificate a request is anonymous, which only the public
 * health and version endpoints accept (401 elsewhere).
 */
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../../machinery/status.js';
import type { Filter, RequestContext, UserInfo } from '../context.js';

const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * A connection's certificate never changes, so its user is read once per
 * connection (per HTTP/2 session, or per HTTP/1.1 socket), not per request.
 */
const usersByConnection = new WeakMap<object, UserInfo | null>();

function connectionOf(ctx: RequestContext): object {
  const stream = (ctx.req as { stream?: { session?: object } }).stream;
  return stream?.session ?? ctx.req.socket;
}

export function userFromCertificate(ctx: RequestContext): UserInfo | undefined {
  const connection = connectionOf(ctx);
  const known = usersByConnection.get(connection);
  if (known !== undefined) return known ?? undefined;
  const user = readCertificate(ctx);
  usersByConnection.set(connection, user ?? null);
  return user;
}

function readCertificate(ctx: RequestContext): UserInfo | undefined {
  const socket = ctx.req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (cert === null || Object.keys(cert).length === 0) return undefined;
  const cn = cert.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (name === undefined || name === '') return undefined;
  const o = cert.subject?.O;
  const orgs = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { name, groups: [...orgs, 'system:authenticated'] };
}

export const withAuthentication: Filter = (next) => async (ctx) => {
  const user = userFromCertificate(ctx);
  if (user === undefined) {
    const path = ctx.path;
    if (!PUBLIC_PATHS.has(path) && !path.startsWith('/livez/') && !path.startsWith('/readyz/') && !path.startsWith('/healthz/')) {
      throw unauthorized();
    }
    ctx.user = ANONYMOUS;
  } else {
    ctx.user = user;
  }
  await next(ctx);
};
