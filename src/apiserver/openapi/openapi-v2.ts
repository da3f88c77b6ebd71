/**
 * The /openapi/v2 document of a Scheme, encoded once and kept: its JSON bytes,
 * its ETag (the upper-case hex SHA-512 of the JSON, as upstream's kube-openapi
 * computes it, shared by both encodings), and its protobuf and gzip forms,
 * each built on first use and then cached, as upstream's handler caches them
 * (so a server nobody asks for OpenAPI v2 never pays for it).
 */
import { gzipSync } from 'node:zlib';
import type { Scheme } from '../../api/scheme.js';
import { buildSwaggerDocument } from './build-swagger.js';
import { openApiHash } from './document-hash.js';
import { encodeSwaggerProtobuf } from './gnostic-v2.js';
import { loadOpenApiV2Data, type JsonObject, type OpenApiV2Data } from './openapi-data.js';
import { DEFAULT_OPENAPI_VERSION } from './openapi-v3.js';

/** The two encodings /openapi/v2 serves. */
export type OpenApiV2Encoding = 'json' | 'protobuf';

export interface OpenApiV2Options {
  /** `info.version` of the document (upstream: the server's gitVersion). Default `v1.33.0`. */
  gitVersion?: string;
  /** The Swagger 2.0 data; default the committed data under src/apiserver/openapi/data/. */
  data?: OpenApiV2Data;
  /** When the document was built (Last-Modified); default now. */
  now?: Date;
}

/** The served Swagger 2.0 document. */
export interface OpenApiV2 {
  /** Upper-case hex SHA-512 of the JSON bytes: the ETag, quoted on the wire. */
  hash(): string;
  /** When the document was built, for Last-Modified. */
  readonly lastModified: Date;
  /** The document's bytes in `encoding` (gzip-compressed when `gzip`), encoded once. */
  body(encoding: OpenApiV2Encoding, gzip?: boolean): Buffer;
}

/** Build the Scheme's /openapi/v2 document. */
export function newOpenApiV2(scheme: Scheme, options: OpenApiV2Options = {}): OpenApiV2 {
  let doc: JsonObject | undefined;
  const document = (): JsonObject =>
    (doc ??= buildSwaggerDocument(scheme, options.data ?? loadOpenApiV2Data(), { version: options.gitVersion ?? DEFAULT_OPENAPI_VERSION }));
  const plain: Partial<Record<OpenApiV2Encoding, Buffer>> = {};
  const gzipped: Partial<Record<OpenApiV2Encoding, Buffer>> = {};
  const encoded = (encoding: OpenApiV2Encoding): Buffer =>
    (plain[encoding] ??= Buffer.from(encoding === 'json' ? JSON.stringify(document()) : encodeSwaggerProtobuf(document())));
  let hash: string | undefined;
  return {
    hash: () => (hash ??= openApiHash(encoded('json'))),
    // HTTP dates have whole seconds; keeping the built time so makes If-Modified-Since comparisons exact.
    lastModified: new Date(Math.floor((options.now ?? new Date()).getTime() / 1000) * 1000),
    body: (encoding, gzip = false) => (gzip ? (gzipped[encoding] ??= gzipSync(encoded(encoding))) : encoded(encoding)),
  };
}
