/**
 * Every metric of one API server, in a registry of its own (never
 * prom-client's global one), so that several servers can run in one process
 * (tests do): request metrics (request-metrics.ts), storage metrics
 * (storage-metrics.ts) and the process metrics of prom-client's
 * collectDefaultMetrics (process_cpu_seconds_total,
 * process_resident_memory_bytes, process_open_fds, nodejs_*).
 *
 *   const metrics = newApiServerMetrics();
 *   buildHandlerChain(route, { log, metrics: metrics.requests });
 *   new ObjectStorage(newInstrumentedStorage(storage, metrics.storage, typeOf));
 *   routes.set('/metrics', newMetricsHandler(metrics.registry));
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import { RequestMetrics, type RequestMetricsOptions } from './request-metrics.js';
import { StorageMetrics } from './storage-metrics.js';

export interface ApiServerMetricsOptions extends RequestMetricsOptions {
  /**
   * Add prom-client's process and Node.js metrics (default true). They start
   * an event-loop-delay monitor and a GC observer that live as long as the
   * process: unit tests that make many registries leave them out.
   */
  readonly processMetrics?: boolean;
}

export interface ApiServerMetrics {
  readonly registry: Registry;
  readonly requests: RequestMetrics;
  readonly storage: StorageMetrics;
}

export function newApiServerMetrics(options: ApiServerMetricsOptions = {}): ApiServerMetrics {
  const registry = new Registry();
  const requests = new RequestMetrics(registry, options);
  const storage = new StorageMetrics(registry);
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  return { registry, requests, storage };
}
