/**
 * The httpGet handler (upstream pkg/probe/http): one GET without keep-alive
 * or compression, certificates not verified for https, redirects followed
 * only while they stay on the first request's host name (at most 10
 * requests); the whole exchange, body included, within the timeout.
 * 200–299 is success, a 3xx that was not followed is success with a warning
 * ("Probe terminated redirects, Response body: …"), anything else is failure
 * ("HTTP probe failed with statuscode: 500"); a request that fails is a
 * failure with Go's error text (`Get "http://…": dial tcp …: connect:
 * connection refused`). At most 10 KiB of the body is read.
 */
import http from 'node:http';
import https from 'node:https';
import { goDialError, goQuote, joinHostPort } from './go-format.js';
import type { HttpProbeRequest } from './http-probe-request.js';
import { failure, ProbeError, success, warning, type ProbeOutcome } from './probe-outcome.js';

export const MAX_RESPONSE_BODY_BYTES = 10 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REQUESTS = 10;

const TIMEOUT_AWAITING_HEADERS = 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
const TIMEOUT_READING_BODY = 'context deadline exceeded (Client.Timeout or context cancellation while reading body)';

/** Thrown inside the exchange; becomes a failure whose output is Go's url.Error text. */
class RequestFailed extends Error {
  constructor(
    readonly url: string,
    readonly detail: string,
  ) {
    super(`Get ${goQuote(url)}: ${detail}`);
  }
}

interface Exchange {
  timedOut(): boolean;
  /** Runs `abort` when the timeout expires (at once if it has); the returned function unregisters it. */
  onTimeout(abort: () => void): () => void;
}

/**
 * What a request or response is destroyed with when the probe times out. One object, made once: a stream's destroy
 * reads the error's stack, and formatting a fresh stack (through source maps, with --enable-source-maps) for every
 * timed-out probe cost the kubelet real CPU on a busy node, where timeouts come in bursts. Its text is never shown:
 * a timeout's failure says Go's deadline text.
 */
const TIMED_OUT = new Error('probe timeout');
void TIMED_OUT.stack;

function dialAddress(url: URL): string {
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return joinHostPort(url.hostname.replace(/^\[|\]$/g, ''), port);
}

function describeError(url: URL, e: unknown, exchange: Exchange): string {
  if (exchange.timedOut()) return TIMEOUT_AWAITING_HEADERS;
  const err = e as NodeJS.ErrnoException;
  if (err.syscall === 'connect' || err.syscall === 'getaddrinfo') return goDialError(dialAddress(url), err);
  if (err.code === 'ECONNRESET' && err.message === 'socket hang up') return 'EOF';
  return err.message;
}

/**
 * Agents without keep-alive: every probe gets a connection of its own, which
 * it closes (Connection: close) once answered, as upstream's prober disables
 * keep-alive; nothing is pooled or queued (no socket limit). Shared rather
 * than `agent: false`, which builds a new agent for every request.
 */
const HTTP_AGENT = new http.Agent({ keepAlive: false });
// No TLS session is kept for resumption either: each probe's handshake is a full one, as with a new agent.
const HTTPS_AGENT = new https.Agent({ keepAlive: false, rejectUnauthorized: false, maxCachedSessions: 0 });

function send(url: URL, displayUrl: string, headers: http.OutgoingHttpHeaders, exchange: Exchange): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      if (url.protocol === 'https:') req = https.request(url, { method: 'GET', agent: HTTPS_AGENT, headers, rejectUnauthorized: false });
      else if (url.protocol === 'http:') req = http.request(url, { method: 'GET', agent: HTTP_AGENT, headers });
      else throw new RequestFailed(displayUrl, `unsupported protocol scheme ${goQuote(url.protocol.replace(/:$/, ''))}`);
    } catch (e: unknown) {
      reject(e instanceof RequestFailed ? e : new RequestFailed(displayUrl, e instanceof Error ? e.message : String(e)));
      return;
    }
    const unregister = exchange.onTimeout(() => req.destroy(TIMED_OUT));
    req.on('response', (res) => {
      unregister();
      resolve(res);
    });
    req.on('error', (e) => {
      unregister();
      reject(new RequestFailed(displayUrl, describeError(url, e, exchange)));
    });
    req.end();
  });
}

function readBody(res: http.IncomingMessage, exchange: Exchange): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const unregister = exchange.onTimeout(() => res.destroy(TIMED_OUT));
    const done = (): void => {
      if (settled) return;
      settled = true;
      unregister();
      resolve(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES).toString('utf8'));
      res.destroy();
    };
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_RESPONSE_BODY_BYTES) done();
    });
    res.on('end', done);
    const fail = (message: string, cause?: unknown): void => {
      if (settled) return;
      settled = true;
      unregister();
      reject(new ProbeError(exchange.timedOut() ? TIMEOUT_READING_BODY : message, { cause, state: 'failure' }));
    };
    res.on('error', (e) => fail(e.message, e));
    res.on('aborted', () => fail('unexpected EOF'));
  });
}

/** The `host[:port]` of an absolute URL as written: Go's Host header (Node's URL would drop a default port). */
const rawAuthority = (url: string): string | undefined => /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1]?.replace(/^.*@/, '');

function headerObject(headers: ReadonlyMap<string, readonly string[]>, host: string): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, values] of headers) if (name !== 'Host') out[name] = values.length === 1 ? values[0] : [...values];
  out['Host'] = host;
  return out;
}

export interface HttpProbeOptions {
  readonly request: HttpProbeRequest;
  readonly timeoutMs: number;
}

export async function httpProbe({ request, timeoutMs }: HttpProbeOptions): Promise<ProbeOutcome> {
  let expired = false;
  const aborts = new Set<() => void>();
  const timer = setTimeout(() => {
    expired = true;
    for (const abort of [...aborts]) abort();
  }, timeoutMs);
  const exchange: Exchange = {
    timedOut: () => expired,
    onTimeout: (abort) => {
      if (expired) {
        abort();
        return () => undefined;
      }
      aborts.add(abort);
      return () => aborts.delete(abort);
    },
  };
  try {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch (e: unknown) {
      throw new ProbeError(`parse ${goQuote(request.url)}: invalid URL`, { cause: e });
    }
    const firstHostname = url.hostname;
    let hostHeader = request.headers.get('Host')?.[0];
    let authority = rawAuthority(request.url) ?? url.host;
    let displayUrl = request.url;
    for (let requests = 1; ; requests++) {
      const res = await send(url, displayUrl, headerObject(request.headers, hostHeader ?? authority), exchange);
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(res.statusCode ?? 0) && location !== undefined) {
        let target: URL;
        try {
          target = new URL(location, url);
        } catch {
          res.destroy();
          throw new RequestFailed(location, `failed to parse Location header ${goQuote(location)}`);
        }
        if (target.hostname === firstHostname) {
          res.destroy();
          if (requests >= MAX_REQUESTS) throw new RequestFailed(location, `stopped after ${MAX_REQUESTS} redirects`);
          // Go keeps a custom Host header across a redirect only when the new location is relative.
          const absolute = rawAuthority(location);
          hostHeader = hostHeader !== undefined && hostHeader !== authority && absolute === undefined ? hostHeader : undefined;
          authority = absolute ?? authority;
          url = target;
          displayUrl = target.toString();
          continue;
        }
      }
      const body = await readBody(res, exchange);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 400) {
        if (status >= 300) return warning(`Probe terminated redirects, Response body: ${body}`);
        return success(body);
      }
      return failure(`HTTP probe failed with statuscode: ${status}`);
    }
  } catch (e: unknown) {
    if (e instanceof RequestFailed) return failure(e.message);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
