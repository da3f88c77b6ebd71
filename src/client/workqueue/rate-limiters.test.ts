import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BucketRateLimiter, defaultControllerRateLimiter, ItemExponentialRateLimiter, MaxOfRateLimiter } from './rate-limiters.js';

describe('rate limiters', () => {
  it('backs a key off exponentially up to the maximum, per key, until forgotten', () => {
    const l = new ItemExponentialRateLimiter(5, 100);
    assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => l.when('a')), [5, 10, 20, 40, 80, 100]);
    assert.equal(l.when('b'), 5);
    assert.equal(l.numRequeues('a'), 6);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.equal(l.when('a'), 5);
  });

  it('never overflows after many failures', () => {
    const l = new ItemExponentialRateLimiter(5, 1_000_000);
    for (let i = 0; i < 2000; i++) l.when('a');
    assert.equal(l.when('a'), 1_000_000);
  });

  it('lets a burst through, then spaces retries at qps', () => {
    let t = 0;
    const l = new BucketRateLimiter(10, 2, () => t);
    assert.equal(l.when(), 0);
    assert.equal(l.when(), 0);
    assert.equal(l.when(), 100);
    assert.equal(l.when(), 200);
    t = 1000; // 10 tokens refill, capped at the burst after paying the debt
    assert.equal(l.when(), 0);
    assert.equal(l.numRequeues(), 0);
  });

  it('takes the longest delay of its limiters', () => {
    let t = 0;
    const l = new MaxOfRateLimiter(new ItemExponentialRateLimiter(5, 1000), new BucketRateLimiter(1, 1, () => t));
    assert.equal(l.when('a'), 5);
    assert.equal(l.when('a'), 1000);
    assert.equal(l.numRequeues('a'), 2);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.throws(() => new MaxOfRateLimiter(), /at least one limiter/);
  });

  it('has upstream defaults: 5 ms doubling, overall 10 qps with a burst of 100', () => {
    const l = defaultControllerRateLimiter();
    assert.equal(l.when('x'), 5);
    assert.equal(l.when('x'), 10);
  });
});
