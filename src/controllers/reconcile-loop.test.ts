import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InformerFactory } from '../client/cache/interfaces.js';
import { newFakeClient } from '../client/testing/fake-client.js';
import { waitFor } from '../client/testing/wait-for.js';
import { ItemExponentialRateLimiter } from '../client/workqueue/rate-limiters.js';
import { RateLimitingQueue } from '../client/workqueue/rate-limiting-queue.js';
import { newLogger } from '../machinery/logger.js';
import type { ControllerContext } from './context.js';
import { defaultControllerManagerOptions } from './options.js';
import { conflict } from '../machinery/status.js';
import { retriedErrorForLog, startReconcileLoop, terminalError, TransientError, type Reconcile } from './reconcile-loop.js';

function context(synced: Promise<void> = Promise.resolve()): { ctx: ControllerContext; abort: AbortController } {
  const abort = new AbortController();
  const informers: InformerFactory = {
    informerFor: () => {
      throw new Error('not in this test');
    },
    start: () => {},
    waitForCacheSync: () => synced,
    stop: () => {},
  };
  const ctx: ControllerContext = {
    client: newFakeClient(),
    informers,
    events: { recorderFor: () => ({ event: () => {} }) },
    logger: newLogger('test', { level: 'silent' }),
    options: defaultControllerManagerOptions(),
    signal: abort.signal,
  };
  return { ctx, abort };
}

const fastQueue = (): RateLimitingQueue => new RateLimitingQueue({ rateLimiter: new ItemExponentialRateLimiter(1, 4) });

describe('startReconcileLoop', () => {
  it('reconciles each key and forgets its backoff on success', async () => {
    const { ctx, abort } = context();
    const seen: string[] = [];
    const loop = startReconcileLoop(ctx, { name: 't', workers: 2, reconcile: async (key) => void seen.push(key) });
    loop.enqueue('a');
    loop.enqueue('b');
    await waitFor(() => seen.length === 2);
    assert.deepEqual(seen.sort(), ['a', 'b']);
    abort.abort();
    await loop.stopped;
  });

  it('retries a failing key with backoff until it succeeds', async () => {
    const { ctx, abort } = context();
    let calls = 0;
    const requeues: number[] = [];
    const queue = fastQueue();
    const loop = startReconcileLoop(ctx, {
      name: 't',
      workers: 1,
      queue,
      reconcile: async (key) => {
        calls++;
        requeues.push(queue.numRequeues(key));
        if (calls < 3) throw new Error('conflict');
      },
    });
    const keepAlive = setInterval(() => {}, 1000);
    loop.enqueue('a');
    await waitFor(() => calls === 3);
    clearInterval(keepAlive);
    assert.deepEqual(requeues, [0, 1, 2]);
    await waitFor(() => queue.numRequeues('a') === 0, { description: 'forgotten after the success' });
    abort.abort();
    await loop.stopped;
  });

  it('drops a key after a TerminalError until it is enqueued again', async () => {
    const { ctx, abort } = context();
    let calls = 0;
    const queue = fastQueue();
    const loop = startReconcileLoop(ctx, {
      name: 't',
      workers: 1,
      queue,
      reconcile: async () => {
        calls++;
        throw terminalError('bad spec', new Error('why'));
      },
    });
    loop.enqueue('a');
    await waitFor(() => calls === 1);
    await waitFor(() => queue.length === 0);
    assert.equal(queue.numRequeues('a'), 0);
    loop.enqueue('a');
    await waitFor(() => calls === 2);
    abort.abort();
    await loop.stopped;
  });

  it('re-adds a key after requeueAfterMs', async () => {
    const { ctx, abort } = context();
    let calls = 0;
    const loop = startReconcileLoop(ctx, { name: 't', workers: 1, reconcile: async () => (++calls === 1 ? { requeueAfterMs: 5 } : undefined) });
    const keepAlive = setInterval(() => {}, 1000);
    loop.enqueue('a');
    await waitFor(() => calls === 2);
    clearInterval(keepAlive);
    abort.abort();
    await loop.stopped;
  });

  it('re-adds a key asking for requeueAfterMs 0 through its growing backoff, never starving the event loop', async () => {
    const { ctx, abort } = context();
    let calls = 0;
    // Needs no I/O and always asks to run again at once: a deployment stuck past its progress deadline does this.
    const loop = startReconcileLoop(ctx, { name: 't', workers: 1, queue: new RateLimitingQueue({ rateLimiter: new ItemExponentialRateLimiter(1, 1000) }), reconcile: async () => {
        calls++;
        return { requeueAfterMs: 0 };
      },
    });
    loop.enqueue('a');
    // A timer still fires, and by then the growing backoff has kept the reconciles few.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(calls > 1, 'reconciled again');
    assert.ok(calls < 20, `the backoff grows (1, 2, 4… ms): ${calls} reconciles in 100 ms`);
    abort.abort();
    await loop.stopped;
  });

  it('never reconciles one key in two workers at once', async () => {
    const { ctx, abort } = context();
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reconcile: Reconcile = async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      calls++;
      if (calls === 1) await gate;
      running--;
    };
    const loop = startReconcileLoop(ctx, { name: 't', workers: 4, reconcile });
    loop.enqueue('a');
    await waitFor(() => calls === 1);
    loop.enqueue('a');
    loop.enqueue('a');
    await new Promise((r) => setImmediate(r));
    assert.equal(calls, 1, 'the second add waits for the first reconcile');
    release();
    await waitFor(() => calls === 2);
    assert.equal(maxRunning, 1);
    abort.abort();
    await loop.stopped;
  });

  it('waits for the caches before the first reconcile, and stops without reconciling if they never sync', async () => {
    let sync!: () => void;
    const { ctx, abort } = context(new Promise<void>((r) => (sync = r)));
    const seen: string[] = [];
    const loop = startReconcileLoop(ctx, { name: 't', workers: 1, reconcile: async (k) => void seen.push(k) });
    loop.enqueue('a');
    await new Promise((r) => setImmediate(r));
    assert.equal(seen.length, 0);
    sync();
    await waitFor(() => seen.length === 1);
    abort.abort();
    await loop.stopped;

    const never = context(Promise.reject(new Error('aborted')));
    const other = startReconcileLoop(never.ctx, { name: 't', workers: 1, reconcile: async (k) => void seen.push(k) });
    other.enqueue('b');
    await other.stopped;
    assert.deepEqual(seen, ['a']);
  });

  it('stops its workers when the signal aborts, even one started after', async () => {
    const { ctx, abort } = context();
    abort.abort();
    const loop = startReconcileLoop(ctx, { name: 't', reconcile: async () => {} });
    await loop.stopped;
    loop.enqueue('x'); // ignored after shutdown
    assert.equal(loop.queue.length, 0);
  });
});

describe('the log line of a retried reconcile', () => {
  it('shows an API answer and a transient error by message, without a stack', () => {
    assert.equal(
      retriedErrorForLog(conflict({ group: 'apps', resource: 'deployments' }, 'hello', 'the object has been modified')),
      'Operation cannot be fulfilled on deployments.apps "hello": the object has been modified',
    );
    assert.equal(retriedErrorForLog(new TransientError('endpoints informer cache is out of date')), 'endpoints informer cache is out of date');
  });

  it('keeps anything else as it is, stack and all (it may be a bug)', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'spec')");
    assert.equal(retriedErrorForLog(bug), bug);
  });

  it('is what the loop logs when it retries', async () => {
    const { ctx, abort } = context();
    const lines: string[] = [];
    const logged = { ...ctx, logger: newLogger('test', { level: 'warn', destination: { write: (line: string) => void lines.push(line) } as unknown as NodeJS.WritableStream }) };
    let calls = 0;
    const loop = startReconcileLoop(logged, {
      name: 't',
      workers: 1,
      queue: fastQueue(),
      reconcile: async () => {
        if (++calls === 1) throw new TransientError('cache is behind');
      },
    });
    const keepAlive = setInterval(() => {}, 1000);
    loop.enqueue('a');
    await waitFor(() => calls === 2);
    clearInterval(keepAlive);
    const line = JSON.parse(lines[0]!) as { msg: string; key: string; err: unknown };
    assert.equal(line.msg, 'reconcile failed; retrying with backoff');
    assert.equal(line.err, 'cache is behind');
    abort.abort();
    await loop.stopped;
  });
});
