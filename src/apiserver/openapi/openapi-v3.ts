/**
 * The /openapi/v3 endpoints' bodies, as a pure function of a Scheme and the
 * committed data: the index (`{"paths":{"api/v1":{"serverRelativeURL":
 * "/openapi/v3/api/v1?hash=<HASH>"},…}}`) and each document's bytes, with the
 * upstream hash of those bytes (upper-case hex SHA-512), which is also the
 * document's ETag. Everything is built once, when created.
 */
import type { Scheme } from '../../api/scheme.js';
import { buildOpenApiV3Documents } from './build-documents.js';
import { openApiHash } from './document-hash.js';
import { loadOpenApiData, type OpenApiData } from './openapi-data.js';

/** The `info.version` upstream 1.33 would publish (its git version). */
export const DEFAULT_OPENAPI_VERSION = 'v1.33.0';

export interface OpenApiV3Options {
  /** `info.version` of the documents (upstream: the server's gitVersion). Default `v1.33.0`. */
  gitVersion?: string;
  /** The path and schema data; default the committed data under src/apiserver/openapi/data/. */
  data?: OpenApiData;
  /** When the documents were built (their Last-Modified); default now. */
  now?: Date;
}

/** One serialised document (or the index). */
export interface OpenApiV3Body {
  /** The exact response body (JSON). */
  readonly bytes: Buffer;
  /** Upper-case hex SHA-512 of `bytes`: the ETag (quoted on the wire) and the `hash` query value. */
  readonly hash: string;
}

/** A group-version (or root) document, e.g. `api/v1`, `apis/apps/v1`, `apis/apps`, `version`. */
export interface OpenApiV3Document extends OpenApiV3Body {
  readonly name: string;
  /** `/openapi/v3/<name>?hash=<hash>`, as the index lists it. */
  readonly serverRelativeURL: string;
  /** When the document was built, for Last-Modified. */
  readonly lastModified: Date;
}

/** The served OpenAPI v3 documents. */
export interface OpenApiV3 {
  /** The body of GET /openapi/v3. */
  readonly index: OpenApiV3Body;
  /** Document names in index order. */
  readonly names: readonly string[];
  /** The document served at /openapi/v3/<name>, or undefined. */
  document(name: string): OpenApiV3Document | undefined;
}

/** The body of a JSON value, hashed. */
function body(value: unknown): OpenApiV3Body {
  const bytes = Buffer.from(JSON.stringify(value));
  return { bytes, hash: openApiHash(bytes) };
}

/** Build every /openapi/v3 document the Scheme serves, and their index. */
export function newOpenApiV3(scheme: Scheme, options: OpenApiV3Options = {}): OpenApiV3 {
  const data = options.data ?? loadOpenApiData();
  const built = buildOpenApiV3Documents(scheme, data, { version: options.gitVersion ?? DEFAULT_OPENAPI_VERSION });
  const documents = new Map<string, OpenApiV3Document>();
  const lastModified = options.now ?? new Date();
  for (const [name, doc] of built) {
    const b = body(doc);
    documents.set(name, { name, ...b, serverRelativeURL: `/openapi/v3/${name}?hash=${b.hash}`, lastModified });
  }
  const names = [...documents.keys()];
  const index = body({ paths: Object.fromEntries(names.map((n) => [n, { serverRelativeURL: documents.get(n)!.serverRelativeURL }])) });
  return { index, names, document: (name) => documents.get(name) };
}
