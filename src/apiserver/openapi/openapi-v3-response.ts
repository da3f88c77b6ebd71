/**
 * What GET /openapi/v3 and /openapi/v3/<name> answer, decided as upstream's
 * kube-openapi handler does, without doing HTTP: the index and the documents
 * carry their hash as a quoted ETag and a Last-Modified (the index's is the
 * time of the request, as upstream's), and Go's http.ServeContent rules answer
 * a matching If-None-Match (or If-Modified-Since) with 304; a document asked
 * for with the hash the index gave gets `Cache-Control: public, immutable` and
 * a one-year Expires, and one asked for with a stale hash is redirected (301)
 * to its current URL. Documents are served as JSON only (not upstream's
 * protobuf form, which kubectl does not ask for), so an Accept header without
 * JSON gets upstream's bare 406.
 */
import { clauseMatches, parseAccept } from '../discovery/accept-header.js';
import { isNotModified } from './conditional-request.js';
import type { OpenApiV3 } from './openapi-v3.js';

const PREFIX = '/openapi/v3';

/** The parts of a request the answer depends on. */
export interface OpenApiV3Request {
  /** The URL path, e.g. `/openapi/v3/apis/apps/v1`. */
  path: string;
  /** The `hash` query parameter, if any. */
  hash?: string | undefined;
  accept?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
  /** The time of the request, for Expires and the index's Last-Modified (default now). */
  now?: Date;
}

/** The answer: a status, headers and, for 200, the body. */
export type OpenApiV3Response =
  | { status: 200; headers: Record<string, string>; body: Buffer }
  | { status: 301 | 304 | 404 | 406; headers: Record<string, string> };

const acceptsJson = (accept: string | undefined): boolean =>
  parseAccept(accept === undefined || accept.trim() === '' ? '*/*' : accept).some((c) => clauseMatches(c, 'application/json'));

/** Answer a request for the index or one document of `openapi`. */
export function openApiV3Response(openapi: OpenApiV3, request: OpenApiV3Request): OpenApiV3Response {
  if (request.path === PREFIX || request.path === `${PREFIX}/`) {
    const etag = JSON.stringify(openapi.index.hash);
    const now = request.now ?? new Date();
    const headers = { 'content-type': 'application/json', etag, 'last-modified': now.toUTCString() };
    if (isNotModified(request, etag, now)) return { status: 304, headers: { etag } };
    return { status: 200, headers, body: openapi.index.bytes };
  }
  if (!request.path.startsWith(`${PREFIX}/`)) return { status: 404, headers: {} };
  const doc = openapi.document(request.path.slice(PREFIX.length + 1));
  if (doc === undefined) return { status: 404, headers: {} };
  if (!acceptsJson(request.accept)) return { status: 406, headers: { vary: 'Accept' } };
  const etag = JSON.stringify(doc.hash);
  const headers: Record<string, string> = { vary: 'Accept', 'content-type': 'application/json', etag, 'last-modified': doc.lastModified.toUTCString() };
  if (request.hash !== undefined && request.hash !== '') {
    if (request.hash !== doc.hash) return { status: 301, headers: { ...headers, location: doc.serverRelativeURL } };
    const expires = new Date((request.now ?? new Date()).getTime());
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    headers['cache-control'] = 'public, immutable';
    headers['expires'] = expires.toUTCString();
  }
  if (isNotModified(request, etag, doc.lastModified)) {
    // ServeContent drops the body's headers and, with an ETag, Last-Modified from a 304.
    const { 'content-type': _type, 'last-modified': _modified, ...kept } = headers;
    return { status: 304, headers: kept };
  }
  return { status: 200, headers, body: doc.bytes };
}
