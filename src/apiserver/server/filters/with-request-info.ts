import type { Filter } from '../context.js';
import { parseRequestInfo } from '../request-info.js';

/** Reads what the request asks for (verb, resource, namespace, name) once, for every filter after it. */
export const withRequestInfo: Filter = (next) => async (ctx) => {
  ctx.info = parseRequestInfo(ctx.req.method ?? 'GET', ctx.path, ctx.query);
  await next(ctx);
};
