/**
 * GET /metrics: the registry in Prometheus text format
 * (`text/plain; version=0.0.4; charset=utf-8`). Like every non-public path it
 * needs an authenticated client (upstream's RBAC gives `get` on the
 * non-resource URL /metrics to system:monitoring).
 */
import type { Registry } from 'prom-client';
import { methodNotAllowed } from '../../machinery/status.js';
import type { Handler } from '../server/context.js';

export function newMetricsHandler(registry: Registry): Handler {
  return async (ctx) => {
    const method = ctx.req.method;
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
    const body = await registry.metrics();
    if (ctx.res.headersSent) return;
    ctx.res.writeHead(200, {
      'content-type': registry.contentType,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-cache, private',
    });
    if (method === 'HEAD') ctx.res.end();
    else ctx.res.end(body);
  };
}
