import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventRing } from './event-ring.js';

describe('EventRing', () => {
  it('holds at most maxEvents, oldest dropped first, and knows the revision its history starts after', () => {
    const ring = new EventRing<{ revision: number }>({ historyMs: 1e9, maxEvents: 3, now: () => 0 });
    ring.reset(10);
    assert.equal(ring.oldestRevision, 10);
    for (let r = 11; r <= 15; r++) ring.push({ revision: r });
    assert.equal(ring.size, 3);
    assert.equal(ring.oldestRevision, 12);
    assert.deepEqual([...ring.after(12)].map((e) => e.revision), [13, 14, 15]);
    assert.deepEqual([...ring.after(14)].map((e) => e.revision), [15]);
    assert.deepEqual([...ring.after(15)], []);
  });

  it('drops changes older than historyMs, on push and on expire', () => {
    let now = 0;
    const ring = new EventRing<{ revision: number }>({ historyMs: 100, maxEvents: 1000, now: () => now });
    ring.reset(0);
    for (let r = 1; r <= 40; r++) ring.push({ revision: r }); // grows past its first capacity
    now = 50;
    ring.push({ revision: 41 });
    now = 120;
    ring.expire();
    assert.deepEqual([...ring.after(0)].map((e) => e.revision), [41]);
    assert.equal(ring.oldestRevision, 40);
    now = 1000;
    ring.push({ revision: 42 });
    assert.deepEqual([...ring.after(0)].map((e) => e.revision), [42]);
    assert.equal(ring.oldestRevision, 41);
  });
});
