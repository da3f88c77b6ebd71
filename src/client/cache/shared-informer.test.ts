import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { expired } from '../../machinery/status.js';
import { PushQueue } from '../testing/push-queue.js';
import { waitFor } from '../testing/wait-for.js';
import type { EventHandler } from './interfaces.js';
import type { ListerWatcher, ListSnapshot, ReflectorEvent, WatchSubscription } from './reflector.js';
import { SharedInformer } from './shared-informer.js';

/** A watch the test drives. */
class ScriptedWatch implements WatchSubscription<KubeObject> {
  private readonly queue = new PushQueue<ReflectorEvent<KubeObject>>();

  constructor(readonly from: string) {}

  push(event: ReflectorEvent<KubeObject>): void {
    this.queue.push(event);
  }
  end(error?: unknown): void {
    this.queue.end(error);
  }
  cancel(): void {
    this.end();
  }
  [Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<KubeObject>> {
    return this.queue[Symbol.asyncIterator]();
  }
}

/** Lists come from a queue of snapshots (the last one repeats); watches are reachable through `watches`. */
class ScriptedListerWatcher implements ListerWatcher<KubeObject> {
  readonly watches: ScriptedWatch[] = [];
  lists = 0;
  constructor(private readonly snapshots: ListSnapshot<KubeObject>[]) {}
  async list(): Promise<ListSnapshot<KubeObject>> {
    const snapshot = this.snapshots[Math.min(this.lists, this.snapshots.length - 1)]!;
    this.lists++;
    return snapshot;
  }
  watch(resourceVersion: string): ScriptedWatch {
    const w = new ScriptedWatch(resourceVersion);
    this.watches.push(w);
    return w;
  }
  async watchNumber(n: number): Promise<ScriptedWatch> {
    await waitFor(() => this.watches.length > n, { description: `watch ${n}` });
    return this.watches[n]!;
  }
}

const obj = (name: string, rv: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: rv, labels } });

/** A handler that logs what it sees and what the indexer held at that moment. */
function recorder(informer: SharedInformer, log: string[], tag = ''): EventHandler {
  const seen = (name: string | undefined): string => informer.indexer.get(`ns/${name ?? ''}`)?.metadata.resourceVersion ?? '-';
  return {
    onAdd: (o, initial) => log.push(`${tag}add ${o.metadata.name}@${o.metadata.resourceVersion}${initial ? ' initial' : ''} [${seen(o.metadata.name)}]`),
    onUpdate: (a, b) => log.push(`${tag}update ${b.metadata.name}@${a.metadata.resourceVersion}->${b.metadata.resourceVersion} [${seen(b.metadata.name)}]`),
    onDelete: (o) => log.push(`${tag}delete ${o.metadata.name}@${o.metadata.resourceVersion} [${seen(o.metadata.name)}]`),
  };
}

describe('shared informer', () => {
  const informers: SharedInformer[] = [];
  const track = (i: SharedInformer): SharedInformer => (informers.push(i), i);
  afterEach(() => {
    for (const i of informers.splice(0)) i.stop();
  });

  it('delivers the initial list, then changes in order, with the indexer already up to date', async () => {
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1'), obj('b', '2')], resourceVersion: '2' }]);
    const informer = track(new SharedInformer(lw, { name: 'test' }));
    const log: string[] = [];
    informer.addEventHandler(recorder(informer, log));
    informer.start();
    await informer.synced;
    assert.equal(informer.hasSynced, true);
    assert.equal(informer.lastSyncResourceVersion, '2');
    const watch = await lw.watchNumber(0);
    assert.equal(watch.from, '2');
    watch.push({ type: 'MODIFIED', object: obj('a', '3'), resourceVersion: '3' });
    watch.push({ type: 'ADDED', object: obj('c', '4'), resourceVersion: '4' });
    watch.push({ type: 'DELETED', object: obj('b', '5'), resourceVersion: '5' });
    watch.push({ type: 'DELETED', object: obj('never-seen', '6'), resourceVersion: '6' });
    watch.push({ type: 'BOOKMARK', resourceVersion: '9' });
    await waitFor(() => informer.lastSyncResourceVersion === '9');
    assert.deepEqual(log, [
      'add a@1 initial [1]',
      'add b@2 initial [2]',
      'update a@1->3 [3]',
      'add c@4 [4]',
      'delete b@2 [-]',
    ]);
    assert.deepEqual(informer.indexer.keys().sort(), ['ns/a', 'ns/c']);
  });

  it('after a relist (410) delivers only the difference: adds, changed updates, deletes with the last known state', async () => {
    const lw = new ScriptedListerWatcher([
      { items: [obj('keep', '1'), obj('change', '2'), obj('gone', '3')], resourceVersion: '3' },
      { items: [obj('keep', '1'), obj('change', '7'), obj('new', '8')], resourceVersion: '9' },
    ]);
    const informer = track(new SharedInformer(lw));
    const log: string[] = [];
    informer.addEventHandler(recorder(informer, log));
    informer.start();
    (await lw.watchNumber(0)).end(expired('too old resource version: 3 (5)'));
    await lw.watchNumber(1);
    assert.equal(lw.lists, 2);
    assert.equal(informer.lastSyncResourceVersion, '9');
    assert.deepEqual(log.slice(3), ['update change@2->7 [7]', 'add new@8 [8]', 'delete gone@3 [-]']);
  });

  it('runs handlers in registration order; a throwing handler is reported and the others and the informer go on', async () => {
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1')], resourceVersion: '1' }]);
    const errors: string[] = [];
    const informer = track(new SharedInformer(lw, { onError: (message) => errors.push(message) }));
    const log: string[] = [];
    informer.addEventHandler({ onAdd: (o) => log.push(`first ${o.metadata.name}`) });
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    informer.addEventHandler({ onAdd: (o) => log.push(`third ${o.metadata.name}`) });
    informer.start();
    (await lw.watchNumber(0)).push({ type: 'ADDED', object: obj('b', '2'), resourceVersion: '2' });
    await waitFor(() => log.length === 4);
    assert.deepEqual(log, ['first a', 'third a', 'first b', 'third b']);
    assert.equal(errors.length, 2);
    assert.match(errors[0]!, /handler onAdd threw/);
  });

  it('gives a handler added after the sync the cached objects first (isInInitialList), then later changes', async () => {
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1'), obj('b', '2')], resourceVersion: '2' }]);
    const informer = track(new SharedInformer(lw));
    informer.start();
    await informer.synced;
    const log: string[] = [];
    informer.addEventHandler(recorder(informer, log, 'late '));
    assert.equal(log.length, 0, 'delivered on the next microtask, not inside addEventHandler');
    (await lw.watchNumber(0)).push({ type: 'MODIFIED', object: obj('a', '3'), resourceVersion: '3' });
    await waitFor(() => log.length === 3);
    // The indexer may be ahead of a late handler's initial add (never behind): compare without it.
    assert.deepEqual(log.map((l) => l.replace(/ \[.*\]$/, '')), ['late add a@1 initial', 'late add b@2 initial', 'late update a@1->3']);
  });

  it('a handler added from inside another handler runs after it, with no event lost or doubled', async () => {
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1')], resourceVersion: '1' }]);
    const informer = track(new SharedInformer(lw));
    const log: string[] = [];
    informer.start();
    await informer.synced;
    informer.addEventHandler({
      onAdd: (o) => {
        log.push(`outer ${o.metadata.name}`);
        if (o.metadata.name === 'b') informer.addEventHandler(recorder(informer, log, 'inner '));
      },
    });
    (await lw.watchNumber(0)).push({ type: 'ADDED', object: obj('b', '2'), resourceVersion: '2' });
    (await lw.watchNumber(0)).push({ type: 'ADDED', object: obj('c', '3'), resourceVersion: '3' });
    await waitFor(() => log.includes('inner add c@3 [3]'));
    assert.deepEqual(log, ['outer a', 'outer b', 'inner add a@1 initial [1]', 'inner add b@2 initial [2]', 'outer c', 'inner add c@3 [3]']);
  });

  it('a removed handler gets nothing more', async () => {
    const lw = new ScriptedListerWatcher([{ items: [], resourceVersion: '1' }]);
    const informer = track(new SharedInformer(lw));
    const log: string[] = [];
    const registration = informer.addEventHandler(recorder(informer, log));
    const other: string[] = [];
    informer.addEventHandler(recorder(informer, other));
    informer.start();
    const watch = await lw.watchNumber(0);
    watch.push({ type: 'ADDED', object: obj('a', '2'), resourceVersion: '2' });
    await waitFor(() => log.length === 1);
    registration.remove();
    watch.push({ type: 'ADDED', object: obj('b', '3'), resourceVersion: '3' });
    await waitFor(() => other.length === 2);
    assert.equal(log.length, 1);
  });

  it('resyncs each handler on its own period with onUpdate(obj, obj)', async () => {
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1')], resourceVersion: '1' }]);
    const informer = track(new SharedInformer(lw, { resyncPeriodMs: 0 }));
    const fast: string[] = [];
    const none: string[] = [];
    informer.addEventHandler({ onUpdate: (a, b) => fast.push(`${a === b ? 'same' : 'different'} ${b.metadata.name}`) }, { resyncPeriodMs: 5 });
    informer.addEventHandler({ onUpdate: (_a, b) => none.push(b.metadata.name ?? '') });
    informer.start();
    await waitFor(() => fast.length >= 2);
    assert.deepEqual(fast.slice(0, 2), ['same a', 'same a']);
    assert.deepEqual(none, []);
  });

  it('uses the informer resync period for handlers that give none', async () => {
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1')], resourceVersion: '1' }]);
    const informer = track(new SharedInformer(lw, { resyncPeriodMs: 5 }));
    const log: string[] = [];
    informer.addEventHandler({ onUpdate: (_a, b) => log.push(b.metadata.name ?? '') });
    informer.start();
    await waitFor(() => log.length >= 2);
  });

  it('calls no handler after stop', async () => {
    const lw = new ScriptedListerWatcher([{ items: [], resourceVersion: '1' }]);
    const informer = new SharedInformer(lw);
    const log: string[] = [];
    informer.addEventHandler(recorder(informer, log), { resyncPeriodMs: 1 });
    informer.start();
    const watch = await lw.watchNumber(0);
    informer.stop();
    watch.push({ type: 'ADDED', object: obj('a', '2'), resourceVersion: '2' });
    informer.addEventHandler(recorder(informer, log));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(log, []);
    assert.equal(watch.from, '1');
  });

  it('reports failed lists and keeps trying until one succeeds', async () => {
    let failures = 1;
    const errors: string[] = [];
    const lw = new ScriptedListerWatcher([{ items: [obj('a', '1')], resourceVersion: '1' }]);
    const flaky: ListerWatcher<KubeObject> = {
      list: async () => {
        if (failures-- > 0) throw new Error('connection refused');
        return lw.list();
      },
      watch: (rv) => lw.watch(rv),
    };
    const informer = track(new SharedInformer(flaky, { name: 'pods', initialBackoffMs: 1, onError: (m) => errors.push(m) }));
    informer.start();
    await informer.synced;
    assert.deepEqual(errors, ['reflector pods: list failed']);
    assert.equal(informer.indexer.size, 1);
  });
});
