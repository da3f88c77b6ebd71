/**
 * What this controller last wrote to each EndpointSlice, so that a sync never
 * acts on an informer cache that has not yet seen the controller's own
 * writes (upstream's EndpointSliceTracker and its "informer cache is out of
 * date" retry): acting on a stale cache would create slices twice or undo a
 * write. The check is against the cache's state, not its events, so the
 * order in which a write's response and its watch event arrive does not
 * matter. Expectations expire after a TTL, so a lost one cannot stall a
 * Service for ever.
 */
import type { EndpointSliceObject } from './slice-plan.js';

interface Expectation {
  /** The resourceVersion written, or undefined for a deletion of `uid`. */
  readonly resourceVersion: string | undefined;
  readonly uid: string;
  readonly at: number;
}

export interface SliceTrackerOptions {
  readonly ttlMs?: number;
  readonly now?: () => number;
}

/** -1, 0, 1 for two resourceVersions that are both integers; undefined otherwise (opaque, as the API says they are). */
function compareResourceVersions(a: string, b: string): number | undefined {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export class SliceTracker {
  private readonly byService = new Map<string, Map<string, Expectation>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: SliceTrackerOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  private expectations(serviceKey: string): Map<string, Expectation> {
    let map = this.byService.get(serviceKey);
    if (map === undefined) {
      map = new Map();
      this.byService.set(serviceKey, map);
    }
    return map;
  }

  /** After a create or update: the cache must show at least this version. */
  wrote(serviceKey: string, slice: EndpointSliceObject): void {
    this.expectations(serviceKey).set(slice.metadata.name ?? '', {
      resourceVersion: slice.metadata.resourceVersion ?? '',
      uid: slice.metadata.uid ?? '',
      at: this.now(),
    });
  }

  /** After a delete: the cache must no longer hold this slice. */
  deleted(serviceKey: string, slice: EndpointSliceObject): void {
    this.expectations(serviceKey).set(slice.metadata.name ?? '', { resourceVersion: undefined, uid: slice.metadata.uid ?? '', at: this.now() });
  }

  /** Whether the cached slices of a Service are behind this controller's writes (settled expectations are dropped). */
  isStale(serviceKey: string, cached: readonly EndpointSliceObject[]): boolean {
    const map = this.byService.get(serviceKey);
    if (map === undefined) return false;
    const byName = new Map(cached.map((s) => [s.metadata.name ?? '', s]));
    let stale = false;
    for (const [name, expectation] of map) {
      const slice = byName.get(name);
      let settled: boolean;
      if (this.now() - expectation.at > this.ttlMs) settled = true;
      else if (expectation.resourceVersion === undefined) settled = slice === undefined || slice.metadata.uid !== expectation.uid;
      else if (slice === undefined) settled = false;
      else {
        const rv = slice.metadata.resourceVersion ?? '';
        const order = compareResourceVersions(rv, expectation.resourceVersion);
        settled = order === undefined ? rv === expectation.resourceVersion : order >= 0;
      }
      if (settled) map.delete(name);
      else stale = true;
    }
    if (map.size === 0) this.byService.delete(serviceKey);
    return stale;
  }

  forgetService(serviceKey: string): void {
    this.byService.delete(serviceKey);
  }
}
