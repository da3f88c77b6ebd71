import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EndpointSliceObject } from './slice-plan.js';
import { SliceTracker } from './slice-tracker.js';

const slice = (name: string, resourceVersion: string, uid = `u-${name}`): EndpointSliceObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, uid, resourceVersion },
  addressType: 'IPv4',
  endpoints: [],
});

describe('SliceTracker', () => {
  it('is stale until the cache shows the written version (or a later one)', () => {
    const tracker = new SliceTracker();
    tracker.wrote('ns/web', slice('a', '10'));
    assert.equal(tracker.isStale('ns/web', []), true, 'a created slice not yet seen');
    assert.equal(tracker.isStale('ns/web', [slice('a', '9')]), true);
    assert.equal(tracker.isStale('ns/web', [slice('a', '11')]), false);
    assert.equal(tracker.isStale('ns/web', []), false, 'settled expectations are dropped');
  });
  it('is stale while a deleted slice is still cached', () => {
    const tracker = new SliceTracker();
    tracker.deleted('ns/web', slice('a', '5'));
    assert.equal(tracker.isStale('ns/web', [slice('a', '5')]), true);
    assert.equal(tracker.isStale('ns/web', [slice('a', '6', 'other-uid')]), false);
  });
  it('compares opaque resourceVersions for equality only', () => {
    const tracker = new SliceTracker();
    tracker.wrote('ns/web', slice('a', 'abc'));
    assert.equal(tracker.isStale('ns/web', [slice('a', 'abd')]), true);
    assert.equal(tracker.isStale('ns/web', [slice('a', 'abc')]), false);
  });
  it('lets expectations expire', () => {
    let now = 0;
    const tracker = new SliceTracker({ ttlMs: 100, now: () => now });
    tracker.wrote('ns/web', slice('a', '10'));
    now = 101;
    assert.equal(tracker.isStale('ns/web', []), false);
  });
  it('forgets a Service', () => {
    const tracker = new SliceTracker();
    tracker.wrote('ns/web', slice('a', '10'));
    tracker.forgetService('ns/web');
    assert.equal(tracker.isStale('ns/web', []), false);
  });
});
