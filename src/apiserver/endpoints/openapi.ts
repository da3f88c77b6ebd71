/**
 * /openapi/v3 (the index and one document per group-version, which kubectl
 * reads for server-side field validation support, client-side validation and
 * `kubectl explain`) and /openapi/v2.
 *
 * /openapi/v2 is, for now, a valid but empty Swagger 2.0 document: kubectl
 * 1.27 and 1.28 refuse to create or apply anything when the path is missing,
 * and with an empty one they use /openapi/v3 for the rest. The full v2
 * document comes with the API fidelity issue (kubectl needs it for `kind: List`).
 */
import type { Scheme } from '../../api/scheme.js';
import { notAcceptable, resourceNotFound } from '../../machinery/status.js';
import { newOpenApiV3 } from '../openapi/openapi-v3.js';
import { openApiV3Response } from '../openapi/openapi-v3-response.js';
import type { Handler } from '../server/context.js';
import { writeObject } from '../server/response.js';

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

/** The content type upstream answers protobuf OpenAPI v2 requests with. */
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

export const handleOpenApiV2: Handler = async (ctx) => {
  const accept = ctx.req.headers.accept ?? '';
  if (accept.includes('protobuf')) {
    // An empty protobuf message is a valid, empty swagger document.
    ctx.res.writeHead(200, { 'content-type': V2_PROTOBUF, 'content-length': 0 });
    ctx.res.end();
    return;
  }
  writeObject(ctx, 200, { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.33.0' }, paths: {}, definitions: {} });
};
