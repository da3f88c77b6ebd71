/**
 * One request as it travels the filter chain: the raw request and response,
 * what it asks for (RequestInfo), and who sent it (once authenticated).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { LatencyTracker } from '../audit/latency-tracker.js';
import type { RequestAudit } from '../audit/request-audit.js';
import type { RequestInfo } from './request-info.js';

export type HttpRequest = IncomingMessage | Http2ServerRequest;
export type HttpResponse = ServerResponse | Http2ServerResponse;

export interface UserInfo {
  readonly name: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface RequestContext {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Set by withRequestInfo. */
  info: RequestInfo;
  /** Set by withAuthentication. */
  user: UserInfo | undefined;
  /** When the request arrived (process.hrtime.bigint()). */
  readonly start: bigint;
  /** Warnings to send in Warning headers (added by handlers and admission). */
  readonly warnings: string[];
  /** Set by withAudit when the audit policy logs this request. */
  audit?: RequestAudit;
  /** Time per pipeline stage; set only when the server audits (see audit/latency-tracker.ts). */
  latency?: LatencyTracker;
  /** When the filter being timed by trackLatency started (internal to that wrapper). */
  stageStart?: bigint | undefined;
  /**
   * An HTTP/1.1 upgrade request (exec, attach, port-forward): the raw socket
   * and the bytes read past the headers. `res` then writes a plain HTTP/1.1
   * response on that socket (for errors); a handler that upgrades takes the
   * socket over.
   */
  readonly upgrade?: { readonly socket: Duplex; readonly head: Buffer };
}

/** A step of the request pipeline: it handles the request or passes it on. */
export type Handler = (ctx: RequestContext) => Promise<void>;

/** A filter wraps the rest of the chain. */
export type Filter = (next: Handler) => Handler;
