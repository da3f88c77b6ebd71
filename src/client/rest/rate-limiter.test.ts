import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucketRateLimiter } from './rate-limiter.js';

describe('TokenBucketRateLimiter', () => {
  it('lets a burst through, then spaces requests by 1/qps, in order', () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 3, now: () => now });
    assert.deepEqual([limiter.reserve(), limiter.reserve(), limiter.reserve()], [0, 0, 0]);
    assert.equal(limiter.reserve(), 100);
    assert.equal(limiter.reserve(), 200);
    now = 200; // two tokens came back, both already promised
    assert.equal(limiter.reserve(), 100);
  });
  it('refills up to burst and no further', () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ qps: 10, burst: 2, now: () => now });
    limiter.reserve();
    limiter.reserve();
    now = 10_000;
    assert.deepEqual([limiter.reserve(), limiter.reserve(), limiter.reserve()], [0, 0, 100]);
  });
  it('waits through the injected sleep', async () => {
    const slept: number[] = [];
    const limiter = new TokenBucketRateLimiter({ qps: 2, burst: 1, now: () => 0, sleep: async (ms) => void slept.push(ms) });
    await limiter.wait();
    await limiter.wait();
    assert.deepEqual(slept, [500]);
  });
  it('does not limit with qps ≤ 0', () => {
    const limiter = new TokenBucketRateLimiter({ qps: 0, burst: 1, now: () => 0 });
    for (let i = 0; i < 100; i++) assert.equal(limiter.reserve(), 0);
  });
});
