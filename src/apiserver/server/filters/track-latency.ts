/**
 * Time a filter's own work (from entering it until it passes the request on)
 * under a pipeline stage, for the audit log's latency annotations, as
 * upstream's filterlatency.TrackStarted/TrackCompleted pair does. A request
 * the filter answers itself (a 401, a 403) counts until it throws or returns.
 */
import { LatencyTracker, type LatencyStage } from '../../audit/latency-tracker.js';
import type { Filter } from '../context.js';

export function trackLatency(stage: LatencyStage, filter: Filter): Filter {
  return (next) => {
    const inner = filter(async (ctx) => {
      const tracker = ctx.latency;
      if (tracker !== undefined && ctx.stageStart !== undefined) tracker.add(stage, process.hrtime.bigint() - ctx.stageStart);
      ctx.stageStart = undefined;
      await next(ctx);
    });
    return async (ctx) => {
      const tracker = (ctx.latency ??= new LatencyTracker());
      const start = process.hrtime.bigint();
      ctx.stageStart = start;
      try {
        await inner(ctx);
      } catch (e: unknown) {
        // Rejected inside the filter itself: it never passed the request on.
        if (ctx.stageStart === start) tracker.add(stage, process.hrtime.bigint() - start);
        throw e;
      } finally {
        if (ctx.stageStart === start) ctx.stageStart = undefined;
      }
    };
  };
}
