import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffKey, ContainerBackoff } from './backoff.js';

describe('ContainerBackoff', () => {
  const config = { initialMs: 10_000, maxMs: 300_000, resetAfterMs: 600_000 };

  it('lets the first restart through, then doubles from 10s up to 5m', () => {
    let now = 1_000_000;
    const b = new ContainerBackoff(config, () => now);
    const key = backoffKey('uid', 'c', 'h');
    assert.equal(b.isInBackOffSince(key, now), false);
    b.next(key, now);
    assert.equal(b.describe(key), '10s');
    assert.equal(b.isInBackOffSince(key, now), true);
    assert.equal(b.releaseAt(key, now), now + 10_000);
    now += 10_000;
    assert.equal(b.isInBackOffSince(key, now - 10_000), false);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      b.next(key, now);
      seen.push(b.describe(key));
      now += 1000;
    }
    assert.deepEqual(seen, ['20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s']);
  });

  it('starts again from the initial back-off after a container ran resetAfterMs', () => {
    let now = 0;
    const b = new ContainerBackoff(config, () => now);
    b.next('k', now);
    b.next('k', now);
    assert.equal(b.describe('k'), '20s');
    now += 600_000;
    assert.equal(b.isInBackOffSince('k', now), false);
    b.next('k', now);
    assert.equal(b.describe('k'), '10s');
  });

  it('forgets the keys of a pod', () => {
    const b = new ContainerBackoff(config, () => 0);
    b.next(backoffKey('a', 'c', 'h'), 0);
    b.next(backoffKey('b', 'c', 'h'), 0);
    b.forget('a/');
    assert.equal(b.isInBackOffSince(backoffKey('a', 'c', 'h'), 0), false);
    assert.equal(b.isInBackOffSince(backoffKey('b', 'c', 'h'), 0), true);
  });

  it('spells short test back-offs as Go does', () => {
    const b = new ContainerBackoff({ initialMs: 200, maxMs: 800, resetAfterMs: 60_000 }, () => 0);
    b.next('k', 0);
    assert.equal(b.describe('k'), '200ms');
  });
});
