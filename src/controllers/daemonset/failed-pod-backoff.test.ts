import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedPodBackoff } from './failed-pod-backoff.js';

describe('failed daemon pod backoff', () => {
  it('doubles up to the maximum, and starts over after a long quiet', () => {
    let now = 0;
    const backoff = new FailedPodBackoff({ initialMs: 10, maxMs: 30, now: () => now });
    assert.equal(backoff.remainingMs('k'), undefined);
    backoff.next('k');
    assert.equal(backoff.remainingMs('k'), 10);
    now = 10;
    assert.equal(backoff.remainingMs('k'), undefined);
    backoff.next('k');
    assert.equal(backoff.remainingMs('k'), 20);
    backoff.next('k');
    backoff.next('k');
    assert.equal(backoff.remainingMs('k'), 30);
    now = 100;
    backoff.next('k');
    assert.equal(backoff.remainingMs('k'), 10);
    now = 200;
    backoff.gc();
    assert.equal(backoff.remainingMs('k'), undefined);
  });
});
