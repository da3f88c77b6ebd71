/**
 * The kube-proxy's loop: Service and EndpointSlice informers feed a
 * {@link ProxyState} that is handed, whole, to the {@link Proxier} of the
 * chosen mode, as upstream's proxy does with its BoundedFrequencyRunner:
 *
 * - a change asks for a sync; syncs start at most once per minSyncPeriod
 *   (changes in between are folded into the next one) and at least once per
 *   syncPeriod (a node that drifted is put back);
 * - no sync before both caches have synced (a first state with Services but no
 *   slices would drop every connection);
 * - a rejected sync is retried with back-off (doubling, capped);
 * - after each sync, one log line per EndpointSlice revision now in effect
 *   ({msg: "applied EndpointSlice", slice, resourceVersion}) and the metrics
 *   of sync-metrics.ts: a line is written only once the proxier has applied
 *   the state that holds that revision, so a test can order "slice applied"
 *   before "no new connection reaches the pod".
 */
import { Registry } from 'prom-client';
import { newInformerFactory } from '../client/cache/informer-factory.js';
import type { InformerFactory, SharedIndexInformer } from '../client/cache/interfaces.js';
import type { Client } from '../client/rest/interface.js';
import { ENDPOINT_SLICES, SERVICES } from '../client/rest/resources.js';
import type { Logger } from '../machinery/logger.js';
import type { Proxier, ProxyState, SyncResult } from './interface.js';
import { buildProxyState, type EndpointSliceObject, type ServiceObject } from './service-state.js';
import { newSyncMetrics, type SyncMetrics } from './sync-metrics.js';

/** Upstream's defaults: --iptables-min-sync-period 1s, --iptables-sync-period 30s. */
export const DEFAULT_MIN_SYNC_PERIOD_MS = 1_000;
export const DEFAULT_SYNC_PERIOD_MS = 30_000;

export interface ProxyRunnerOptions {
  readonly client: Client;
  readonly proxier: Proxier;
  /** The proxy's node (--hostname-override): endpoints there are local. */
  readonly nodeName: string;
  readonly logger: Logger;
  /** Where the metrics go (default: a registry of the runner's own). */
  readonly registry?: Registry;
  readonly minSyncPeriodMs?: number;
  readonly syncPeriodMs?: number;
  /** First retry after a rejected sync (default 1 s), doubled up to maxRetryMs (default syncPeriod). */
  readonly initialRetryMs?: number;
  readonly maxRetryMs?: number;
  /** Called after every sync attempt (tests). */
  readonly onSync?: (outcome: { readonly state: ProxyState; readonly result?: SyncResult; readonly error?: unknown }) => void;
}

export interface ProxyRunner {
  /** Start the informers; resolves once their caches have synced (the first sync is then on its way). */
  start(signal?: AbortSignal): Promise<void>;
  /** Stop the informers and timers, wait for a sync in flight, and close the proxier. */
  stop(): Promise<void>;
  /** The EndpointSlice revisions in effect: `namespace/name` → resourceVersion. */
  readonly applied: ReadonlyMap<string, string>;
  readonly metrics: SyncMetrics;
}

export function newProxyRunner(options: ProxyRunnerOptions): ProxyRunner {
  return new BoundedProxyRunner(options);
}

class BoundedProxyRunner implements ProxyRunner {
  readonly metrics: SyncMetrics;
  applied: ReadonlyMap<string, string> = new Map();
  private readonly informers: InformerFactory;
  private readonly services: SharedIndexInformer<ServiceObject>;
  private readonly slices: SharedIndexInformer<EndpointSliceObject>;
  private readonly minSyncPeriodMs: number;
  private readonly syncPeriodMs: number;
  private readonly initialRetryMs: number;
  private readonly maxRetryMs: number;
  private ready = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private lastSyncStart = 0;
  private retryMs: number;
  private lastProblems = '';

  constructor(private readonly options: ProxyRunnerOptions) {
    this.minSyncPeriodMs = options.minSyncPeriodMs ?? DEFAULT_MIN_SYNC_PERIOD_MS;
    this.syncPeriodMs = options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
    this.initialRetryMs = options.initialRetryMs ?? 1_000;
    this.maxRetryMs = options.maxRetryMs ?? Math.max(this.syncPeriodMs, this.initialRetryMs);
    this.retryMs = this.initialRetryMs;
    const registry = options.registry ?? new Registry();
    this.metrics = newSyncMetrics(registry);
    this.informers = newInformerFactory(options.client, { resyncPeriodMs: 0, onError: (text, error) => options.logger.warn({ err: error }, text) });
    this.services = this.informers.informerFor<ServiceObject>(SERVICES);
    this.slices = this.informers.informerFor<EndpointSliceObject>(ENDPOINT_SLICES);
    const handler = { onAdd: () => this.requestSync(), onUpdate: () => this.requestSync(), onDelete: () => this.requestSync() };
    this.services.addEventHandler(handler);
    this.slices.addEventHandler(handler);
  }

  async start(signal?: AbortSignal): Promise<void> {
    this.informers.start();
    await this.informers.waitForCacheSync(signal);
    if (this.stopped) return;
    this.ready = true;
    this.requestSync();
    if (this.syncPeriodMs > 0) this.periodic = setInterval(() => this.requestSync(), this.syncPeriodMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    clearInterval(this.periodic);
    this.informers.stop();
    await this.running;
    await this.options.proxier.close();
  }

  /** Ask for a sync: now if the last one started minSyncPeriod ago, else when it has; folded with any already asked for. */
  private requestSync(): void {
    if (!this.ready || this.stopped) return;
    if (this.running !== undefined) {
      this.pending = true;
      return;
    }
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastSyncStart + this.minSyncPeriodMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.sync().finally(() => {
        this.running = undefined;
        if (this.pending) {
          this.pending = false;
          this.requestSync();
        }
      });
    }, wait);
  }

  private async sync(): Promise<void> {
    this.lastSyncStart = Date.now();
    const state = buildProxyState({ services: this.services.indexer.list(), slices: this.slices.indexer.list(), nodeName: this.options.nodeName });
    const started = performance.now();
    let result: SyncResult;
    try {
      result = await this.options.proxier.sync(state);
    } catch (error: unknown) {
      this.options.logger.error({ err: error, retryInMs: this.retryMs }, 'sync of proxy rules failed; retrying');
      this.scheduleRetry();
      this.options.onSync?.({ state, error });
      return;
    }
    this.retryMs = this.initialRetryMs;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.metrics.syncDuration.observe((performance.now() - started) / 1000);
    this.metrics.lastSyncTimestamp.set(Date.now() / 1000);
    this.metrics.syncProblems.set(result.problems.length);
    this.reportApplied(state.sliceVersions);
    this.reportProblems(result.problems);
    this.options.onSync?.({ state, result });
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.maxRetryMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.requestSync();
    }, wait);
  }

  private reportApplied(now: ReadonlyMap<string, string>): void {
    const log = this.options.logger;
    for (const [slice, resourceVersion] of now) {
      if (this.applied.get(slice) === resourceVersion) continue;
      log.info({ slice, resourceVersion }, 'applied EndpointSlice');
      this.metrics.sliceRevisionsApplied.inc();
      const numeric = Number(resourceVersion);
      if (Number.isFinite(numeric)) this.metrics.sliceResourceVersion.set({ slice }, numeric);
    }
    for (const slice of this.applied.keys()) {
      if (now.has(slice)) continue;
      log.info({ slice }, 'removed EndpointSlice');
      this.metrics.sliceResourceVersion.remove({ slice });
    }
    this.applied = now;
  }

  /** Problems are logged when they change, not on every periodic sync. */
  private reportProblems(problems: readonly string[]): void {
    const text = problems.join('\n');
    if (text === this.lastProblems) return;
    this.lastProblems = text;
    for (const problem of problems) this.options.logger.warn({ problem }, 'a Service could not be programmed');
  }
}
