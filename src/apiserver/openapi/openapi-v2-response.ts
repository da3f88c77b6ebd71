/**
 * What GET /openapi/v2 answers, decided as upstream's kube-openapi handler
 * does, without doing HTTP. The Accept clauses are tried in goautoneg's order
 * against JSON, then the deprecated protobuf name
 * (`…spec.v2@v1.0+protobuf`, which kubectl sends), then the current one
 * (`…spec.v2.v1.0+protobuf`); both protobuf names are answered with the
 * current content type. No match is a 406. The body carries `Vary: Accept`,
 * the quoted ETag (the same for both encodings) and Last-Modified, and Go's
 * http.ServeContent rules turn a matching If-None-Match (or, without one, an
 * If-Modified-Since not before Last-Modified) into a 304. As upstream wraps
 * the handler in a gzip handler, a client that accepts gzip gets a body of
 * 1400 bytes or more compressed.
 */
import { parseAccept } from '../discovery/accept-header.js';
import { isNotModified } from './conditional-request.js';
import type { OpenApiV2, OpenApiV2Encoding } from './openapi-v2.js';

/** The content type of the protobuf encoding, whichever name the client used. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const ACCEPTED: readonly { subType: string; encoding: OpenApiV2Encoding; contentType: string }[] = [
  { subType: 'json', encoding: 'json', contentType: 'application/json' },
  { subType: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', encoding: 'protobuf', contentType: OPENAPI_V2_PROTOBUF },
  { subType: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', encoding: 'protobuf', contentType: OPENAPI_V2_PROTOBUF },
];

/** The gzip handler varies every answer on Accept-Encoding; the handler itself on Accept. */
const VARY = 'Accept-Encoding, Accept';

/** The gzip handler's threshold: smaller bodies go out as they are. */
const GZIP_MIN_SIZE = 1400;

/** The parts of a request the answer depends on. */
export interface OpenApiV2Request {
  accept?: string | undefined;
  acceptEncoding?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
}

/** The answer: a status, headers and, for 200, the body. */
export type OpenApiV2Response = { status: 200; headers: Record<string, string>; body: Buffer } | { status: 304 | 406; headers: Record<string, string> };

/** Whether the client takes gzip: an `Accept-Encoding` clause gzip (or *) with a q above 0. */
function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim());
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number.parseFloat(q.slice(2)) > 0;
  });
}

/** Answer a request for /openapi/v2. */
export function openApiV2Response(openapi: OpenApiV2, request: OpenApiV2Request): OpenApiV2Response {
  const accept = request.accept === undefined || request.accept.trim() === '' ? '*/*' : request.accept;
  let chosen: (typeof ACCEPTED)[number] | undefined;
  for (const clause of parseAccept(accept)) {
    chosen = ACCEPTED.find((a) => (clause.type === 'application' || clause.type === '*') && (clause.subType === a.subType || clause.subType === '*'));
    if (chosen !== undefined) break;
  }
  if (chosen === undefined) return { status: 406, headers: { vary: VARY } };
  const etag = JSON.stringify(openapi.hash());
  const lastModified = openapi.lastModified.toUTCString();
  // ServeContent keeps the ETag on a 304 and drops Last-Modified, the body's headers and the body.
  if (isNotModified(request, etag, openapi.lastModified)) return { status: 304, headers: { vary: VARY, etag } };
  const headers: Record<string, string> = { vary: VARY, 'content-type': chosen.contentType, etag, 'last-modified': lastModified };
  const plain = openapi.body(chosen.encoding);
  if (plain.length >= GZIP_MIN_SIZE && acceptsGzip(request.acceptEncoding)) {
    headers['content-encoding'] = 'gzip';
    return { status: 200, headers, body: openapi.body(chosen.encoding, true) };
  }
  return { status: 200, headers, body: plain };
}
