import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expired, serviceUnavailable } from '../../machinery/status.js';
import { PushQueue } from '../testing/push-queue.js';
import { Reflector, type ListerWatcher, type ListSnapshot, type ReflectorChange, type ReflectorEvent, type ReflectorStore, type WatchSubscription } from './reflector.js';

/** A watch the test drives: push events, end it, or fail it. */
class FakeWatch implements WatchSubscription<string> {
  private readonly queue = new PushQueue<ReflectorEvent<string>>();
  cancelled = false;
  progressRequests = 0;

  constructor(readonly from: string) {}

  push(event: ReflectorEvent<string>): void {
    this.queue.push(event);
  }
  end(error?: unknown): void {
    this.queue.end(error);
  }
  cancel(): void {
    this.cancelled = true;
    this.end();
  }
  requestProgress(): void {
    this.progressRequests++;
  }
  [Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<string>> {
    return this.queue[Symbol.asyncIterator]();
  }
}

/** A ListerWatcher whose lists come from a script and whose watches the test reaches through `watches`. */
class FakeListerWatcher implements ListerWatcher<string> {
  readonly watches: FakeWatch[] = [];
  private watchWaiters: ((w: FakeWatch) => void)[] = [];
  lists = 0;

  constructor(private readonly script: (() => Promise<ListSnapshot<string>>)[]) {}

  list(): Promise<ListSnapshot<string>> {
    const step = this.script[Math.min(this.lists, this.script.length - 1)]!;
    this.lists++;
    return step();
  }
  watch(resourceVersion: string): FakeWatch {
    const w = new FakeWatch(resourceVersion);
    this.watches.push(w);
    for (const waiter of this.watchWaiters.splice(0)) waiter(w);
    return w;
  }
  /** The n-th watch (0-based), once it is opened. */
  async nthWatch(n: number): Promise<FakeWatch> {
    while (this.watches.length <= n) await new Promise<FakeWatch>((resolve) => this.watchWaiters.push(resolve));
    return this.watches[n]!;
  }
}

/** Records every store call, and lets a test wait for a count. */
class RecordingStore implements ReflectorStore<string> {
  readonly calls: string[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];
  replace(items: readonly string[], rv: string): void {
    this.record(`replace ${items.join(',') || '-'} @${rv}`);
  }
  apply(change: ReflectorChange<string>): void {
    this.record(`${change.type} ${change.object} @${change.resourceVersion}`);
  }
  progress(rv: string): void {
    this.record(`progress @${rv}`);
  }
  async waitFor(n: number): Promise<void> {
    if (this.calls.length >= n) return;
    await new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
  }
  private record(call: string): void {
    this.calls.push(call);
    this.waiters = this.waiters.filter((w) => (this.calls.length >= w.n ? (w.resolve(), false) : true));
  }
}

const snapshot = (rv: string, ...items: string[]) => () => Promise.resolve({ items, resourceVersion: rv });

describe('Reflector', () => {
  it('lists, then applies the watch from the list resourceVersion in order, bookmarks as progress', async () => {
    const lw = new FakeListerWatcher([snapshot('10', 'a', 'b')]);
    const store = new RecordingStore();
    const r = new Reflector(lw, store, { initialBackoffMs: 1 });
    r.start();
    await r.synced;
    assert.equal(r.hasSynced, true);
    const w = await lw.nthWatch(0);
    assert.equal(w.from, '10');
    w.push({ type: 'ADDED', object: 'c', resourceVersion: '11' });
    w.push({ type: 'MODIFIED', object: 'a', resourceVersion: '12' });
    w.push({ type: 'BOOKMARK', resourceVersion: '15' });
    w.push({ type: 'DELETED', object: 'b', resourceVersion: '16' });
    await store.waitFor(5);
    assert.deepEqual(store.calls, ['replace a,b @10', 'ADDED c @11', 'MODIFIED a @12', 'progress @15', 'DELETED b @16']);
    assert.equal(r.resourceVersion, '16');
    r.stop();
  });

  it('watches again from the last resourceVersion when a watch ends or fails, without listing again', async () => {
    const lw = new FakeListerWatcher([snapshot('10')]);
    const store = new RecordingStore();
    const errors: string[] = [];
    const r = new Reflector(lw, store, { initialBackoffMs: 1, onError: (m) => errors.push(m) });
    r.start();
    const w0 = await lw.nthWatch(0);
    w0.push({ type: 'ADDED', object: 'a', resourceVersion: '11' });
    w0.end(); // the server's timeout
    const w1 = await lw.nthWatch(1);
    assert.equal(w1.from, '11');
    w1.push({ type: 'BOOKMARK', resourceVersion: '20' });
    w1.end(serviceUnavailable('connection reset'));
    const w2 = await lw.nthWatch(2);
    assert.equal(w2.from, '20');
    assert.equal(lw.lists, 1);
    assert.deepEqual(errors, ['reflector: watch ended with an error']);
    r.stop();
    assert.equal(w2.cancelled, true);
  });

  it('lists again when the resourceVersion has expired (410), and the store gets a fresh replace', async () => {
    const lw = new FakeListerWatcher([snapshot('10', 'a'), snapshot('50', 'b')]);
    const store = new RecordingStore();
    const r = new Reflector(lw, store, { initialBackoffMs: 1 });
    r.start();
    const w0 = await lw.nthWatch(0);
    w0.end(expired('too old resource version: 10 (40)'));
    const w1 = await lw.nthWatch(1);
    assert.equal(w1.from, '50');
    assert.deepEqual(store.calls, ['replace a @10', 'replace b @50']);
    r.stop();
  });

  it('retries a failed list with backoff and reports it; synced waits for the first good list', async () => {
    let failures = 0;
    const lw = new FakeListerWatcher([
      () => {
        failures++;
        return Promise.reject(serviceUnavailable('storage down'));
      },
      () => {
        failures++;
        return Promise.reject(serviceUnavailable('storage down'));
      },
      snapshot('7', 'x'),
    ]);
    const store = new RecordingStore();
    const errors: string[] = [];
    const r = new Reflector(lw, store, { name: 'pods', initialBackoffMs: 1, onError: (m) => errors.push(m) });
    r.start();
    await r.synced;
    assert.equal(failures, 2);
    assert.deepEqual(errors, ['reflector pods: list failed', 'reflector pods: list failed']);
    assert.deepEqual(store.calls, ['replace x @7']);
    r.stop();
  });

  it('a watch that cannot even open (expired) relists; one that fails to open otherwise is retried', async () => {
    let opens = 0;
    const store = new RecordingStore();
    const inner = new FakeListerWatcher([snapshot('5'), snapshot('9')]);
    const lw: ListerWatcher<string> = {
      list: () => inner.list(),
      watch: (rv) => {
        opens++;
        if (opens === 1) throw serviceUnavailable('no stream');
        if (opens === 2) throw expired('too old');
        return inner.watch(rv);
      },
    };
    const r = new Reflector(lw, store, { initialBackoffMs: 1 });
    r.start();
    const w = await inner.nthWatch(0);
    assert.equal(w.from, '9');
    assert.deepEqual(store.calls, ['replace - @5', 'replace - @9']);
    r.stop();
  });

  it('forwards progress requests to the open watch, and calls the store no more after stop', async () => {
    const lw = new FakeListerWatcher([snapshot('1')]);
    const store = new RecordingStore();
    const r = new Reflector(lw, store, { initialBackoffMs: 1 });
    r.requestProgress(); // nothing open: a no-op
    r.start();
    const w = await lw.nthWatch(0);
    assert.equal(r.watching, true);
    r.requestProgress();
    assert.equal(w.progressRequests, 1);
    r.stop();
    w.push({ type: 'ADDED', object: 'late', resourceVersion: '2' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(store.calls, ['replace - @1']);
  });
});
