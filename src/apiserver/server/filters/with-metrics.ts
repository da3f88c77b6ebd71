/**
 * Request metrics (metrics/request-metrics.ts): counts every request that
 * reaches it by verb, resource, scope and response code, observes its latency
 * from arrival (ctx.start), and keeps the in-flight gauges: long-running
 * requests (watches, exec, logs, …) in apiserver_longrunning_requests while
 * open, the others in apiserver_current_inflight_requests.
 *
 * It runs right after withRequestInfo, so it sees every request with its
 * RequestInfo, authenticated or not. An error thrown below it is counted with
 * the code withPanicRecovery will answer (the StatusError's, else 500) and
 * rethrown.
 */
import { StatusError } from '../../../machinery/status.js';
import type { RequestMetrics, RequestShape } from '../../metrics/request-metrics.js';
import { isLongRunning, isMutating } from '../../metrics/request-labels.js';
import type { Filter } from '../context.js';

const passThrough: Filter = (next) => next;

/** Without metrics (a server built without them) the filter passes requests through. */
export function withMetrics(metrics: RequestMetrics | undefined): Filter {
  if (metrics === undefined) return passThrough;
  return (next) => async (ctx) => {
    const info = ctx.info;
    let longRunning: RequestShape | undefined;
    let mutating = false;
    if (isLongRunning(info)) {
      // Upstream records long-running requests by their labels while open.
      longRunning = metrics.shapeOf(ctx, true);
      longRunning.open++;
      longRunning.longRunning().inc();
    } else {
      mutating = isMutating(info);
      metrics.inflight.begin(mutating);
    }
    let code = 0;
    try {
      await next(ctx);
    } catch (e: unknown) {
      code = ctx.res.headersSent ? ctx.res.statusCode : e instanceof StatusError ? e.code : 500;
      throw e;
    } finally {
      if (code === 0) code = ctx.res.statusCode;
      // Labels from the path only for authenticated requests, and for non-resource paths that exist.
      const trusted = ctx.user !== undefined && (info.isResourceRequest || code !== 404);
      if (longRunning !== undefined) {
        longRunning.open--;
        longRunning.longRunning().dec();
        if (trusted) metrics.record(ctx, code, longRunning);
        else {
          metrics.record(ctx, code, metrics.shapeOf(ctx, false));
          metrics.forgetUnvouched(longRunning);
        }
      } else {
        metrics.inflight.end(mutating);
        metrics.record(ctx, code, metrics.shapeOf(ctx, trusted));
      }
    }
  };
}
