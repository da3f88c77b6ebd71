/**
 * The API server's request metrics, with upstream's names, labels and buckets
 * (k8s.io/apiserver pkg/endpoints/metrics/metrics.go, Kubernetes 1.33):
 *
 *   apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}
 *   apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component}
 *   apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}
 *   apiserver_current_inflight_requests{request_kind="readOnly"|"mutating"}
 *
 * As upstream does, every request that completes is counted and its latency
 * observed, watches included (dashboards select `verb!~"WATCH|CONNECT"`);
 * long-running requests (watch, proxy, log, exec, attach, port-forward) are
 * also tracked while open by apiserver_longrunning_requests and left out of
 * apiserver_current_inflight_requests, which reports the most requests in
 * flight at once since the previous scrape (upstream: in the last second).
 *
 * The hot path: a request's series are found once per distinct kind of
 * request (a RequestShape, indexed by its label values without building a
 * key) and updated as plain numbers (vec.ts).
 *
 * Labels read from the path are trusted only when the request was
 * authenticated (otherwise anyone could make new series by asking for made-up
 * paths): a request that failed authentication, or a non-resource path that
 * does not exist (404), is recorded with empty group, version, resource and
 * subresource; and past `maxShapes` distinct shapes, new ones are recorded so
 * too.
 */
import { Gauge, type Registry } from 'prom-client';
import type { RequestContext } from '../server/context.js';
import { APISERVER_COMPONENT, cleanDryRun, cleanScope, reportedVerb } from './request-labels.js';
import { CounterVec, GaugeVec, HistogramVec, type CounterSeries, type GaugeSeries, type HistogramSeries } from './vec.js';

/** Upstream's buckets of apiserver_request_duration_seconds (and etcd_request_duration_seconds). */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

export const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

export interface RequestMetricsOptions {
  /** Distinct label sets with labels from the path before new ones lose them (default 4096). */
  readonly maxShapes?: number;
}

/** One kind of request (its label values but the code) and its series, created on first use. */
export class RequestShape {
  private readonly byCode = new Map<number, CounterSeries>();
  private durationSeries: HistogramSeries | undefined;
  /** Long-running requests of this shape open now. */
  open = 0;

  constructor(
    private readonly metrics: RequestMetrics,
    /** verb, dry_run, group, version, resource, subresource, scope, component. */
    readonly values: readonly string[],
  ) {}

  total(code: number): CounterSeries {
    let series = this.byCode.get(code);
    if (series === undefined) {
      series = this.metrics.total.series(...this.values, String(code));
      this.byCode.set(code, series);
    }
    return series;
  }

  duration(): HistogramSeries {
    return (this.durationSeries ??= this.metrics.duration.series(...this.values));
  }

  /** Not cached: shapes that differ only in dry_run share it, and it may be removed (forgetUnvouched). */
  longRunning(): GaugeSeries {
    return this.metrics.longRunning.series(...this.longRunningValues());
  }

  longRunningValues(): string[] {
    const [verb, , group, version, resource, subresource, scope, component] = this.values;
    return [verb!, group!, version!, resource!, subresource!, scope!, component!];
  }

  /** True once a request of this shape completed (its labels were trusted then). */
  get recorded(): boolean {
    return this.byCode.size > 0;
  }
}

/** Requests in flight by kind, and the most at once since the last read. */
export class InflightWatermark {
  readOnly = 0;
  mutating = 0;
  private maxReadOnly = 0;
  private maxMutating = 0;

  begin(mutating: boolean): void {
    if (mutating) {
      if (++this.mutating > this.maxMutating) this.maxMutating = this.mutating;
    } else if (++this.readOnly > this.maxReadOnly) {
      this.maxReadOnly = this.readOnly;
    }
  }

  end(mutating: boolean): void {
    if (mutating) this.mutating--;
    else this.readOnly--;
  }

  /** The highest counts since the previous call; the window restarts from the current counts. */
  take(): { readOnly: number; mutating: number } {
    const taken = { readOnly: this.maxReadOnly, mutating: this.maxMutating };
    this.maxReadOnly = this.readOnly;
    this.maxMutating = this.mutating;
    return taken;
  }
}

export class RequestMetrics {
  readonly total: CounterVec;
  readonly duration: HistogramVec;
  readonly longRunning: GaugeVec;
  readonly inflight = new InflightWatermark();
  private readonly shapes = new ShapeIndex();
  private readonly maxShapes: number;

  constructor(registry: Registry, options: RequestMetricsOptions = {}) {
    this.maxShapes = options.maxShapes ?? 4096;
    this.total = new CounterVec({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
    }).registerIn(registry);
    this.duration = new HistogramVec({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: REQUEST_LABELS,
      buckets: REQUEST_DURATION_BUCKETS,
    }).registerIn(registry);
    this.longRunning = new GaugeVec({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    }).registerIn(registry);
    const inflight = this.inflight;
    const readOnly = { request_kind: 'readOnly' };
    const mutating = { request_kind: 'mutating' };
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [registry],
      collect() {
        const taken = inflight.take();
        this.set(readOnly, taken.readOnly);
        this.set(mutating, taken.mutating);
      },
    });
  }

  /**
   * The shape of a request. With `trustPath` false (or past maxShapes) the
   * labels taken from the path (group, version, resource, subresource) are
   * left empty.
   */
  shapeOf(ctx: RequestContext, trustPath: boolean): RequestShape {
    const info = ctx.info;
    const method = ctx.req.method ?? 'GET';
    const scope = cleanScope(info);
    const verb = reportedVerb(method, info, scope, method === 'PATCH' ? ctx.req.headers['content-type'] : undefined);
    const dryRun = cleanDryRun(ctx.query);
    if (trustPath) {
      const resource = info.isResourceRequest;
      const group = resource ? info.apiGroup : '';
      const version = resource ? info.apiVersion : '';
      const name = resource ? info.resource : '';
      const subresource = resource ? info.subresource : info.path;
      const shape = this.shapes.find(verb, dryRun, scope, group, version, name, subresource);
      if (shape !== undefined) return shape;
      if (this.shapes.size < this.maxShapes) {
        return this.shapes.add(new RequestShape(this, [verb, dryRun, group, version, name, subresource, scope, APISERVER_COMPONENT]));
      }
    }
    // Path-less shapes are few (verbs × dry-run values × scopes): never capped.
    return (
      this.shapes.find(verb, dryRun, scope, '', '', '', '') ??
      this.shapes.add(new RequestShape(this, [verb, dryRun, '', '', '', '', scope, APISERVER_COMPONENT]))
    );
  }

  /**
   * Forget a shape no completed request vouched for, once nothing uses it: a
   * long-running request that then failed authentication leaves no series.
   */
  forgetUnvouched(shape: RequestShape): void {
    if (shape.open > 0 || shape.recorded || !this.shapes.delete(shape)) return;
    const values = shape.longRunningValues();
    if (this.longRunning.series(...values).value === 0) this.longRunning.remove(...values);
  }

  /** Count a completed request and observe its latency (seconds since ctx.start). */
  record(ctx: RequestContext, code: number, shape: RequestShape): void {
    shape.total(code).inc();
    shape.duration().observe(Number(process.hrtime.bigint() - ctx.start) / 1e9);
  }

  /** Distinct shapes cached (for tests). */
  get shapeCount(): number {
    return this.shapes.size;
  }
}

type Branch = Map<string, Branch>;

/**
 * Shapes by verb, dry_run, scope, group, version, resource and subresource,
 * in nested maps: finding one hashes the (short) label strings and allocates
 * nothing, where a joined key would build and hash a new string per request.
 */
class ShapeIndex {
  private readonly root: Branch = new Map();
  size = 0;

  find(verb: string, dryRun: string, scope: string, group: string, version: string, resource: string, subresource: string): RequestShape | undefined {
    const leaf = this.root.get(verb)?.get(dryRun)?.get(scope)?.get(group)?.get(version)?.get(resource) as Map<string, RequestShape> | undefined;
    return leaf?.get(subresource);
  }

  add(shape: RequestShape): RequestShape {
    const path = ShapeIndex.path(shape);
    let branch = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      let next = branch.get(path[i]!);
      if (next === undefined) {
        next = new Map();
        branch.set(path[i]!, next);
      }
      branch = next;
    }
    (branch as unknown as Map<string, RequestShape>).set(path[path.length - 1]!, shape);
    this.size++;
    return shape;
  }

  /** Remove the shape (if it is the one indexed) and the branches it leaves empty. */
  delete(shape: RequestShape): boolean {
    const path = ShapeIndex.path(shape);
    const branches: Branch[] = [this.root];
    for (let i = 0; i < path.length - 1; i++) {
      const next = branches[i]!.get(path[i]!);
      if (next === undefined) return false;
      branches.push(next);
    }
    const leaf = branches[branches.length - 1] as unknown as Map<string, RequestShape>;
    if (leaf.get(path[path.length - 1]!) !== shape) return false;
    leaf.delete(path[path.length - 1]!);
    this.size--;
    for (let i = branches.length - 1; i > 0 && branches[i]!.size === 0; i--) branches[i - 1]!.delete(path[i - 1]!);
    return true;
  }

  private static path(shape: RequestShape): string[] {
    const [verb, dryRun, group, version, resource, subresource, scope] = shape.values;
    return [verb!, dryRun!, scope!, group!, version!, resource!, subresource!];
  }
}
