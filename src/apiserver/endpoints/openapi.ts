/**
 * /openapi/v3 (the index and one document per group-version, which kubectl
 * reads for server-side field validation support, client-side validation and
 * `kubectl explain`) and /openapi/v2.
 *
 * /openapi/v2 is the whole Swagger 2.0 document: every kubectl fetches it
 * (in protobuf) to validate a `kind: List` file on the client, and
 * `kubectl explain --output plaintext-openapiv2` reads it.
 */
import type { Scheme } from '../../api/scheme.js';
import { notAcceptable, resourceNotFound } from '../../machinery/status.js';
import { newOpenApiV2 } from '../openapi/openapi-v2.js';
import { openApiV2Response } from '../openapi/openapi-v2-response.js';
import { newOpenApiV3 } from '../openapi/openapi-v3.js';
import { openApiV3Response } from '../openapi/openapi-v3-response.js';
import type { Handler } from '../server/context.js';

export function newOpenApiV3Handler(scheme: Scheme): Handler {
  const openapi = newOpenApiV3(scheme);
  return async (ctx) => {
    const hash = ctx.query.get('hash');
    const ifNoneMatch = ctx.req.headers['if-none-match'];
    const response = openApiV3Response(openapi, {
      path: ctx.path.replace(/\/+$/, '') || '/',
      ...(hash !== null ? { hash } : {}),
      ...(ctx.req.headers.accept !== undefined ? { accept: ctx.req.headers.accept } : {}),
      ...(typeof ifNoneMatch === 'string' ? { ifNoneMatch } : {}),
    });
    if (response.status === 404) throw resourceNotFound();
    if (response.status === 406) throw notAcceptable(['application/json']);
    const body = 'body' in response ? response.body : undefined;
    ctx.res.writeHead(response.status, { ...response.headers, ...(body !== undefined ? { 'content-length': body.length } : {}) });
    if (body === undefined) ctx.res.end();
    else ctx.res.end(body);
  };
}

/**
 * GET /openapi/v2: the Swagger 2.0 document of what the Scheme serves, as
 * JSON or in gnostic's protobuf encoding (what kubectl asks for), with ETag,
 * conditional requests and gzip as upstream's handler answers them.
 */
export function newOpenApiV2Handler(scheme: Scheme): Handler {
  const openapi = newOpenApiV2(scheme);
  return async (ctx) => {
    const header = (name: string): string | undefined => {
      const v = ctx.req.headers[name];
      return typeof v === 'string' ? v : undefined;
    };
    const response = openApiV2Response(openapi, {
      accept: header('accept'),
      acceptEncoding: header('accept-encoding'),
      ifNoneMatch: header('if-none-match'),
      ifModifiedSince: header('if-modified-since'),
    });
    const body = 'body' in response ? response.body : undefined;
    // Upstream answers 406 with no body at all, not a Status.
    ctx.res.writeHead(response.status, { ...response.headers, ...(body !== undefined ? { 'content-length': body.length } : {}) });
    if (body === undefined) ctx.res.end();
    else ctx.res.end(body);
  };
}
