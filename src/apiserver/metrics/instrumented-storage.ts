/**
 * A Storage decorator that times every call into etcd_request_duration_seconds,
 * counts it in etcd_requests_total, and its failures in
 * etcd_request_errors_total (see storage-metrics.ts). Watches pass through
 * untouched; close() is not a request and is not recorded.
 *
 * A failure is what etcd itself would report as one (unavailable, closed,
 * compacted, too large, …). The expected outcomes of a conditional write or a
 * lookup, KeyNotFound, KeyExists and Conflict, are answers, not errors: etcd
 * answers them with a failed transaction, which upstream does not count.
 *
 *   const storage = newInstrumentedStorage(sqlite, metrics.storage, typeOf);
 */
import { isStorageError } from '../../storage/errors.js';
import type { DeleteResult, KeyValue, ListOptions, ListResult, Storage, StorageWatch } from '../../storage/interface.js';
import type { StorageMetrics, StorageOperation, StorageOperationSeries } from './storage-metrics.js';
import type { StorageTypeOf } from './storage-types.js';

/** Without a resolver the type is the first path segment after the first one: `/registry/pods/…` → `pods`. */
const firstSegmentAfterPrefix: StorageTypeOf = (key) => {
  const start = key.indexOf('/', 1) + 1;
  if (start === 0) return '';
  const end = key.indexOf('/', start);
  return end < 0 ? key.slice(start) : key.slice(start, end);
};

export function newInstrumentedStorage(storage: Storage, metrics: StorageMetrics, typeOf: StorageTypeOf = firstSegmentAfterPrefix): Storage {
  return new InstrumentedStorage(storage, metrics, typeOf);
}

/** True when `e` counts in etcd_request_errors_total. */
export function isStorageFailure(e: unknown): boolean {
  return !(isStorageError(e, 'KeyNotFound') || isStorageError(e, 'KeyExists') || isStorageError(e, 'Conflict'));
}

class InstrumentedStorage implements Storage {
  constructor(
    private readonly inner: Storage,
    private readonly metrics: StorageMetrics,
    private readonly typeOf: StorageTypeOf,
  ) {}

  private series(operation: StorageOperation, key: string): StorageOperationSeries {
    return this.metrics.operation(operation, this.typeOf(key));
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const series = this.series('get', key);
    const start = performance.now();
    try {
      return await this.inner.get(key);
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const series = this.series('list', prefix);
    const start = performance.now();
    try {
      return await this.inner.list(prefix, options);
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    const series = this.series('create', key);
    const start = performance.now();
    try {
      return await this.inner.create(key, value);
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    const series = this.series('update', key);
    const start = performance.now();
    try {
      return await this.inner.update(key, value, expectedModRevision);
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const series = this.series('delete', key);
    const start = performance.now();
    try {
      return await this.inner.delete(key, expectedModRevision);
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  watch(prefix: string, fromRevision: number): StorageWatch {
    return this.inner.watch(prefix, fromRevision);
  }

  async currentRevision(): Promise<number> {
    const series = this.metrics.operation('getCurrentResourceVersion', '');
    const start = performance.now();
    try {
      return await this.inner.currentRevision();
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  async compact(revision: number): Promise<void> {
    const series = this.metrics.operation('compact', '');
    const start = performance.now();
    try {
      await this.inner.compact(revision);
    } catch (e: unknown) {
      if (isStorageFailure(e)) series.failed();
      throw e;
    } finally {
      series.done(start);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
