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
import { resourceNotFound } from '../../machinery/status.js';
import { newOpenApiV2 } from '../openapi/openapi-v2.js';
import { openApiV2Response } from '../openapi/openapi-v2-response.js';
import { newOpenApiV3 } from '../openapi/openapi-v3.js';
import { openApiV3Response } from '../openapi/openapi-v3-response.js';
import type { Handler, RequestContext } from '../server/context.js';

/** A request header's value, when it was sent once. */
function header(ctx: RequestContext, name: string): string | undefined {
  const v = ctx.req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/** Write a decided answer; a 304 or 406 has no body (upstream's 406 is bare, not a Status). */
function writeAnswer(ctx: RequestContext, answer: { status: number; headers: Record<string, string>; body?: Buffer }): void {
  const { body } = answer;
  ctx.res.writeHead(answer.status, { ...answer.headers, ...(body !== undefined ? { 'content-length': body.length } : {}) });
  if (body === undefined) ctx.res.end();
  else ctx.res.end(body);
}

/** GET /openapi/v3 and /openapi/v3/<document>: the index and the group-version documents, as JSON. */
export function newOpenApiV3Handler(scheme: Scheme): Handler {
  const openapi = newOpenApiV3(scheme);
  return async (ctx) => {
    const hash = ctx.query.get('hash');
    const response = openApiV3Response(openapi, {
      path: ctx.path.replace(/\/+$/, '') || '/',
      ...(hash !== null ? { hash } : {}),
      accept: header(ctx, 'accept'),
      ifNoneMatch: header(ctx, 'if-none-match'),
      ifModifiedSince: header(ctx, 'if-modified-since'),
    });
    if (response.status === 404) throw resourceNotFound();
    writeAnswer(ctx, response);
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
    const response = openApiV2Response(openapi, {
      accept: header(ctx, 'accept'),
      acceptEncoding: header(ctx, 'accept-encoding'),
      ifNoneMatch: header(ctx, 'if-none-match'),
      ifModifiedSince: header(ctx, 'if-modified-since'),
    });
    writeAnswer(ctx, response);
  };
}
