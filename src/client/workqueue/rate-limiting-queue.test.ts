import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsProviderFor, type WorkQueueMetricsSink } from './metrics.js';
import { ItemExponentialRateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';

async function drain(q: RateLimitingQueue, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = (await q.get())!;
    out.push(k);
    q.done(k);
  }
  return out;
}

/** The queue's timers are unref'd (they must not keep a process alive); a test waiting on one keeps the loop alive itself. */
async function keptAlive<T>(p: Promise<T>): Promise<T> {
  const timer = setInterval(() => {}, 1000);
  try {
    return await p;
  } finally {
    clearInterval(timer);
  }
}

describe('RateLimitingQueue', () => {
  it('is fair: keys come out in the order they went in', async () => {
    const q = new RateLimitingQueue();
    for (const k of ['a', 'b', 'c']) q.add(k);
    assert.equal(q.length, 3);
    assert.deepEqual(await drain(q, 3), ['a', 'b', 'c']);
    assert.equal(q.length, 0);
  });

  it('is stingy: a key added twice before processing is processed once', async () => {
    const q = new RateLimitingQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.deepEqual(await drain(q, 2), ['a', 'b']);
  });

  it('never hands a key to two workers: added while processing, it comes out again after done', async () => {
    const q = new RateLimitingQueue();
    q.add('a');
    const first = await q.get();
    assert.equal(first, 'a');
    q.add('a');
    assert.equal(q.length, 0, 'not waiting while processed');
    let second: string | undefined;
    const waiting = q.get().then((k) => (second = k));
    await Promise.resolve();
    assert.equal(second, undefined);
    q.done('a');
    await waiting;
    assert.equal(second, 'a');
    q.done('a');
  });

  it('hands a key to a worker already waiting', async () => {
    const q = new RateLimitingQueue();
    const got = q.get();
    q.add('x');
    assert.equal(await got, 'x');
    q.done('x');
  });

  it('adds after a delay, the earliest delay winning', async () => {
    const q = new RateLimitingQueue();
    q.addAfter('late', 60_000);
    q.addAfter('late', 5);
    q.addAfter('late', 120_000);
    q.addAfter('now', 0);
    assert.equal(await q.get(), 'now');
    q.done('now');
    assert.equal(await keptAlive(q.get()), 'late');
    q.done('late');
  });

  it('retries with the per-key backoff and forgets it', async () => {
    const q = new RateLimitingQueue({ rateLimiter: new ItemExponentialRateLimiter(1, 10) });
    q.addRateLimited('a');
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 2);
    assert.equal(await keptAlive(q.get()), 'a');
    q.done('a');
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
  });

  it('shuts down: waiters get undefined, queued keys drain, later adds are ignored, timers are cleared', async () => {
    const q = new RateLimitingQueue();
    const waiting = q.get();
    q.shutDown();
    assert.equal(await waiting, undefined);

    const r = new RateLimitingQueue();
    r.add('a');
    r.addAfter('b', 60_000);
    const a = await r.get();
    r.add('a');
    r.shutDown();
    r.add('c');
    r.addRateLimited('d');
    r.done(a!);
    assert.equal(await r.get(), undefined, 'a re-added while processing is dropped at shutdown; b, c and d never come');
  });

  it('keeps the queued keys handed out after shutdown until drained', async () => {
    const q = new RateLimitingQueue();
    q.add('a');
    q.add('b');
    q.shutDown();
    assert.deepEqual(await drain(q, 2), ['a', 'b']);
    assert.equal(await q.get(), undefined);
  });

  it('reports depth, adds, retries and durations through its metrics hooks', async () => {
    const seen: string[] = [];
    let depth = 0;
    const sink: WorkQueueMetricsSink = {
      depth: (name, d) => {
        depth += d;
        seen.push(`${name} depth ${depth}`);
      },
      added: (name) => seen.push(`${name} add`),
      retried: (name) => seen.push(`${name} retry`),
      queued: (name, s) => seen.push(`${name} queued ${s}`),
      worked: (name, s) => seen.push(`${name} worked ${s}`),
    };
    let t = 0;
    const q = new RateLimitingQueue({ metrics: metricsProviderFor(sink, () => t)('rs') });
    q.add('a');
    q.add('a');
    t = 2000;
    const k = (await q.get())!;
    q.add('a'); // while processing: counted as an add, handed out after done
    t = 5000;
    q.done(k);
    assert.equal(await q.get(), 'a');
    q.done('a');
    q.addRateLimited('b');
    q.shutDown();
    assert.deepEqual(seen, [
      'rs add',
      'rs depth 1',
      'rs depth 0',
      'rs queued 2',
      'rs add',
      'rs depth 1',
      'rs worked 3',
      'rs depth 0',
      'rs queued 3',
      'rs worked 0',
      'rs retry',
    ]);
  });
});
