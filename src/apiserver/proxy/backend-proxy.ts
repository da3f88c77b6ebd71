/**
 * The proxy of pods/proxy, services/proxy and nodes/proxy (upstream's
 * UpgradeAwareHandler): the client's request goes to the backend with its
 * method, headers (minus its credentials, which the API server has used
 * already, and the hop-by-hop ones), query and body, and the backend's
 * answer comes back as it is, streamed both ways. An HTTP/1.1 upgrade
 * (WebSocket) is passed through byte for byte. A GET or HEAD of the
 * backend's root without its slash is redirected to it first (301), as
 * upstream does. A backend that cannot be reached is a 503 ServiceUnavailable
 * "error trying to reach service: …" (upstream's proxy transport).
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { serviceUnavailable, type StatusError } from '../../machinery/status.js';
import { proxyUpgradeOver } from '../kubelet/upgrade-proxy.js';
import type { RequestContext } from '../server/context.js';
import { escapePath } from './proxy-path.js';

export interface ProxyBackend {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  /** TLS options for https (the kubelet's client certificate and CA); default: the backend's certificate is not checked, as upstream's proxy transport. */
  readonly tls?: Readonly<Record<string, unknown>>;
}

/** Headers that belong to one connection (RFC 9110 §7.6.1) and never cross the proxy, with HTTP/2's pseudo-headers. */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'http2-settings']);

function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set((Array.isArray(value) ? value.join(',') : (value ?? '')).split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== ''));
}

/** The request headers the backend sees. */
export function forwardedRequestHeaders(headers: IncomingHttpHeaders, remoteAddress: string): OutgoingHttpHeaders {
  const listed = connectionTokens(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    if (name === 'host' || name === 'authorization' || name.startsWith('impersonate-')) continue;
    out[name] = value;
  }
  const prior = headers['x-forwarded-for'];
  const chain = Array.isArray(prior) ? prior.join(', ') : prior;
  out['x-forwarded-for'] = chain !== undefined && chain !== '' ? `${chain}, ${remoteAddress}` : remoteAddress;
  return out;
}

/** The response headers the client sees. */
export function forwardedResponseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = connectionTokens(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** A connection failure in the words of Go's dialer, which upstream's message quotes. */
export function describeDialError(e: unknown, host: string, port: number): string {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${address}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${address}: i/o timeout`;
    case 'ECONNRESET':
      return `read tcp ${address}: read: connection reset by peer`;
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

export const unreachable = (e: unknown, backend: ProxyBackend): StatusError =>
  serviceUnavailable(`error trying to reach service: ${describeDialError(e, backend.host, backend.port)}`);

const rawQuery = (ctx: RequestContext): string => {
  const url = ctx.req.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at);
};

/** Proxy the request in `ctx` to `path` (decoded; '' is the root) of `backend`. */
export async function proxyToBackend(ctx: RequestContext, backend: ProxyBackend, path: string): Promise<void> {
  const method = (ctx.req.method ?? 'GET').toUpperCase();
  const query = rawQuery(ctx);
  if (path === '' && ctx.upgrade === undefined && (method === 'GET' || method === 'HEAD')) {
    ctx.res.writeHead(301, { location: `${ctx.path}/${query}` });
    ctx.res.end();
    return;
  }
  const target = `${escapePath(path === '' ? '/' : path)}${query}`;
  if (ctx.upgrade !== undefined) {
    const socket = await dial(backend);
    await proxyUpgradeOver(ctx, socket, `${backend.host}:${backend.port}`, target);
    return;
  }
  await forward(ctx, backend, method, target);
}

function dial(backend: ProxyBackend): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket =
      backend.scheme === 'https'
        ? tlsConnect({ host: backend.host, port: backend.port, rejectUnauthorized: false, ...backend.tls, ALPNProtocols: ['http/1.1'] })
        : netConnect({ host: backend.host, port: backend.port });
    socket.once(backend.scheme === 'https' ? 'secureConnect' : 'connect', () => resolve(socket));
    socket.once('error', (e) => reject(unreachable(e, backend)));
  });
}

/**
 * Whether the request has a body of unknown length: an HTTP/2 stream not
 * ended with its headers, or a chunked HTTP/1.1 body. Node's client frames
 * such a body for POST, PUT and PATCH itself but not for DELETE or OPTIONS,
 * so the proxy asks for chunks explicitly.
 */
function hasUnsizedBody(req: RequestContext['req']): boolean {
  if (req.headers['content-length'] !== undefined) return false;
  if ('stream' in req) return !req.stream.endAfterHeaders;
  return req.headers['transfer-encoding'] !== undefined;
}

function forward(ctx: RequestContext, backend: ProxyBackend, method: string, target: string): Promise<void> {
  const req = ctx.req;
  const res = ctx.res;
  const headers = forwardedRequestHeaders(req.headers, req.socket?.remoteAddress ?? '');
  if (hasUnsizedBody(req)) headers['transfer-encoding'] = 'chunked';
  const options = { host: backend.host, port: backend.port, method, path: target, headers, agent: false as const };
  return new Promise<void>((resolve, reject) => {
    const outgoing = backend.scheme === 'https' ? httpsRequest({ rejectUnauthorized: false, ...backend.tls, ...options }) : httpRequest(options);
    let answered = false;
    const done = (): void => {
      outgoing.destroy();
      resolve();
    };
    res.once('close', done);
    res.once('finish', done);
    outgoing.once('error', (e) => {
      if (answered) {
        // The answer had started: all that is left is to cut it short.
        res.destroy();
        return;
      }
      res.off('close', done);
      res.off('finish', done);
      req.unpipe(outgoing);
      reject(unreachable(e, backend));
    });
    outgoing.once('response', (incoming: IncomingMessage) => {
      answered = true;
      res.writeHead(incoming.statusCode ?? 502, forwardedResponseHeaders(incoming.headers));
      incoming.on('error', () => res.destroy());
      incoming.pipe(res as NodeJS.WritableStream);
    });
    req.pipe(outgoing);
  });
}
