/**
 * One HTTP exchange with the API server, with everything every request
 * shares: the rate limiter, credentials, keep-alive connections, and retries.
 *
 * Retry rules (as client-go's): a 429, or a 503 with Retry-After, is sent
 * again after Retry-After seconds (or the backoff when absent); a connection
 * error is retried with exponential backoff — for every verb when the
 * connection was never made (refused, unreachable), but only for idempotent
 * verbs (everything but POST: PUT, PATCH and DELETE carry their own
 * preconditions) once the request may have reached the server. A 401 with a
 * plugin or file token refreshes the token once. When retries run out a
 * connection failure becomes a StatusError 503 with the socket error as cause.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import { reasonForCode, StatusError } from '../../machinery/status.js';
import { tokenSourceFor, type TokenSource } from './credentials.js';
import { TokenBucketRateLimiter } from './rate-limiter.js';
import { DEFAULT_BURST, DEFAULT_MAX_RETRIES, DEFAULT_QPS, defaultUserAgent, type RestConfig } from './rest-config.js';

export interface TransportOptions {
  /** Injected in tests to observe delays instead of waiting them. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

export interface TransportRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query: `/api/v1/pods?limit=5`. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  readonly body: string;
}

/** Connection errors that happen before a byte of the request leaves: safe to retry for any verb. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL']);
/** Connection errors after the request may have been sent. */
const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Whether a failed exchange may be sent again. */
export function isRetriableConnectionError(error: unknown, method: string): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return false;
  if (NOT_CONNECTED.has(code)) return true;
  return method !== 'POST' && CONNECTION_LOST.has(code);
}

/** Seconds of a Retry-After header, or undefined (absent or an HTTP date we do not honour). */
export function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return Number(v);
}

/** A StatusError from a failed response: the Status in the body, or the body text under the code's reason. */
export function statusErrorFromBody(code: number, body: string): StatusError {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && (parsed as { kind?: unknown }).kind === 'Status') return StatusError.fromResponse(code, parsed);
  } catch {
    // not JSON: fall through to the text
  }
  const text = body.trim();
  return new StatusError({ code, reason: reasonForCode(code), message: text === '' ? `the server responded with the status code ${code}` : text.slice(0, 1000) });
}

/**
 * An idle keep-alive connection is closed by the client after this long,
 * before a server's usual 5 s idle timeout can close it under a new request
 * (which, for a POST, could not be retried). Sockets in use are not affected.
 */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

/**
 * The CA and client certificate as one secure context built once and shared
 * by every connection of the agent (without it each new TLS connection parses
 * the certificates again). Should they not parse, the raw options are kept so
 * that the error surfaces on the request, as before.
 */
export function tlsOptions(config: RestConfig): https.AgentOptions {
  const raw: tls.SecureContextOptions = {
    ...(config.ca === undefined ? {} : { ca: config.ca }),
    ...(config.clientCert === undefined ? {} : { cert: config.clientCert }),
    ...(config.clientKey === undefined ? {} : { key: config.clientKey }),
  };
  try {
    return { secureContext: tls.createSecureContext(raw) };
  } catch {
    return raw;
  }
}

export class Transport {
  private readonly agent: http.Agent;
  private readonly limiter: TokenBucketRateLimiter;
  private readonly tokens: TokenSource;
  private readonly url: URL;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly userAgent: string;
  private readonly maxRetries: number;

  constructor(private readonly config: RestConfig, options: TransportOptions = {}) {
    try {
      this.url = new URL(config.server);
    } catch (e: unknown) {
      throw new Error(`invalid server URL "${config.server}"`, { cause: e });
    }
    if (this.url.protocol !== 'https:' && this.url.protocol !== 'http:') throw new Error(`invalid server URL "${config.server}": must be https`);
    this.agent =
      this.url.protocol === 'https:'
        ? new https.Agent({
            keepAlive: true,
            timeout: IDLE_SOCKET_TIMEOUT_MS,
            ...tlsOptions(config),
            rejectUnauthorized: config.insecureSkipTlsVerify !== true,
          })
        : new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS });
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.limiter = new TokenBucketRateLimiter({
      qps: config.qps ?? DEFAULT_QPS,
      burst: config.burst ?? DEFAULT_BURST,
      sleep: this.sleep,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    this.tokens = tokenSourceFor(config, options.now === undefined ? {} : { now: options.now });
    this.userAgent = config.userAgent ?? defaultUserAgent();
    this.maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  }

  /** Send and read the whole body; a non-2xx answer rejects with its StatusError. */
  async request(req: TransportRequest): Promise<TransportResponse> {
    return this.exchange(req, async (res) => {
      let body: string;
      try {
        body = await readBody(res);
      } catch (e: unknown) {
        throw new StatusError({ code: 503, reason: 'ServiceUnavailable', message: `the connection to ${this.url.origin} was lost: ${(e as Error).message}` }, { cause: e });
      }
      if (res.statusCode! >= 300) throw statusErrorFromBody(res.statusCode!, body);
      return { status: res.statusCode!, body };
    });
  }

  /** Send and hand back the open 2xx response to read as a stream; a non-2xx answer rejects with its StatusError. */
  async stream(req: TransportRequest): Promise<http.IncomingMessage> {
    return this.exchange(req, async (res) => {
      if (res.statusCode! >= 300) throw statusErrorFromBody(res.statusCode!, await readBody(res));
      return res;
    });
  }

  /** Close idle keep-alive connections (open watches end on their own cancel). */
  close(): void {
    this.agent.destroy();
  }

  private backoff(attempt: number): number {
    const base = this.config.retryDelayMs ?? 200;
    return Math.min(base * 2 ** attempt, this.config.maxRetryDelayMs ?? 5_000);
  }

  private async exchange<R>(req: TransportRequest, handle: (res: http.IncomingMessage) => Promise<R>): Promise<R> {
    let refreshedToken = false;
    for (let attempt = 0; ; attempt++) {
      await this.limiter.wait();
      let token: string | undefined;
      try {
        token = await this.tokens.token();
      } catch (e: unknown) {
        throw new StatusError({ code: 401, reason: 'Unauthorized', message: (e as Error).message }, { cause: e });
      }
      let res: http.IncomingMessage;
      try {
        res = await this.send(req, token);
      } catch (e: unknown) {
        if (req.signal?.aborted === true) throw e;
        if (attempt < this.maxRetries && isRetriableConnectionError(e, req.method)) {
          await this.sleep(this.backoff(attempt));
          continue;
        }
        throw new StatusError(
          { code: 503, reason: 'ServiceUnavailable', message: `cannot reach the API server at ${this.url.origin}: ${(e as Error).message}` },
          { cause: e },
        );
      }
      const status = res.statusCode ?? 0;
      const retryAfter = retryAfterSeconds(res.headers['retry-after']);
      if ((status === 429 || (status === 503 && retryAfter !== undefined)) && attempt < this.maxRetries) {
        res.resume();
        await this.sleep(retryAfter === undefined ? this.backoff(attempt) : retryAfter * 1000);
        continue;
      }
      if (status === 401 && !refreshedToken && (this.config.exec !== undefined || this.config.tokenFile !== undefined)) {
        refreshedToken = true;
        this.tokens.invalidate();
        res.resume();
        continue;
      }
      return handle(res);
    }
  }

  private send(req: TransportRequest, token: string | undefined): Promise<http.IncomingMessage> {
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', 'user-agent': this.userAgent };
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    if (req.body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(req.body);
    }
    const options: http.RequestOptions = {
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.url.port === '' ? undefined : Number(this.url.port),
      path: `${this.url.pathname.replace(/\/$/, '')}${req.path}`,
      method: req.method,
      headers,
      agent: this.agent,
      ...(req.signal === undefined ? {} : { signal: req.signal }),
    };
    const lib = this.url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const r = lib.request(options, resolve);
      r.on('error', reject);
      r.end(req.body);
    });
  }
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('the connection closed before the response ended'), { code: 'ECONNRESET' })));
  });
}
