/**
 * Storage latency with upstream's etcd metrics (k8s.io/apiserver
 * pkg/storage/etcd3/metrics, Kubernetes 1.33), kept for every backend (the
 * embedded sqlite store too, as k3s keeps them over kine):
 *
 *   etcd_request_duration_seconds{operation,type}   histogram, upstream's buckets
 *   etcd_requests_total{operation,type}
 *   etcd_request_errors_total{operation,type}
 *
 * `type` is the stored resource as upstream's groupResource.String() prints it
 * (`pods`, `deployments.apps`), `operation` upstream's verb: get, list,
 * create, update, delete; and getCurrentResourceVersion and compact, which
 * concern the whole store (type '').
 */
import type { Registry } from 'prom-client';
import { REQUEST_DURATION_BUCKETS } from './request-metrics.js';
import { CounterVec, HistogramVec, type CounterSeries, type HistogramSeries } from './vec.js';

export type StorageOperation = 'get' | 'list' | 'create' | 'update' | 'delete' | 'getCurrentResourceVersion' | 'compact';

/** The series of one operation on one type. */
export class StorageOperationSeries {
  constructor(
    readonly duration: HistogramSeries,
    readonly total: CounterSeries,
    private readonly errorsVec: CounterVec,
    private readonly labels: readonly [string, string],
  ) {}

  private errorSeries: CounterSeries | undefined;

  /** Count a failed call (the series appears with the first failure, as upstream's does). */
  failed(): void {
    (this.errorSeries ??= this.errorsVec.series(...this.labels)).inc();
  }

  /** Record a call that started at `startMs` (performance.now()). */
  done(startMs: number): void {
    this.duration.observe((performance.now() - startMs) / 1000);
    this.total.inc();
  }
}

type SeriesByOperation = Partial<Record<StorageOperation, StorageOperationSeries>>;

export class StorageMetrics {
  readonly duration: HistogramVec;
  readonly total: CounterVec;
  readonly errors: CounterVec;
  private readonly byType = new Map<string, SeriesByOperation>();

  constructor(registry: Registry) {
    this.duration = new HistogramVec({
      name: 'etcd_request_duration_seconds',
      help: 'Etcd request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'type'],
      buckets: REQUEST_DURATION_BUCKETS,
    }).registerIn(registry);
    this.total = new CounterVec({
      name: 'etcd_requests_total',
      help: 'Etcd request counts for each operation and object type.',
      labelNames: ['operation', 'type'],
    }).registerIn(registry);
    this.errors = new CounterVec({
      name: 'etcd_request_errors_total',
      help: 'Etcd failed request counts for each operation and object type.',
      labelNames: ['operation', 'type'],
    }).registerIn(registry);
  }

  /** The series of an operation on a type, cached. */
  operation(operation: StorageOperation, type: string): StorageOperationSeries {
    let ops = this.byType.get(type);
    if (ops === undefined) {
      ops = {};
      this.byType.set(type, ops);
    }
    let series = ops[operation];
    if (series === undefined) {
      series = new StorageOperationSeries(this.duration.series(operation, type), this.total.series(operation, type), this.errors, [operation, type]);
      ops[operation] = series;
    }
    return series;
  }
}
