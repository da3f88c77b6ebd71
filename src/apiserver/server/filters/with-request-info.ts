import type { Filter } from '../context.js';
import { parseRequestInfo } from '../request-info.js';

/** Reads what the request asks for (verb, resource, namespace, name) once, for every filter after it. */
export const withRequestInfo: Filter = (next) => (ctx) => {
  try {
    ctx.info = parseRequestInfo(ctx.req.method ?? 'GET', ctx.path, ctx.query);
    return next(ctx);
  } catch (e: unknown) {
    // As a rejection, the way an async filter fails.
    return Promise.reject(e);
  }
};
