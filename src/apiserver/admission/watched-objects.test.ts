import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import type { GenericStore } from '../registry/generic/store.js';
import { newHarness, type Harness } from './plugins/resource-quota/testing/admission-harness.js';
import { newLiveLookup, watchObjects, type WatchedObjects } from './watched-objects.js';

const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** Wait (on the index itself, with a deadline) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the index did not catch up');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('watchObjects', () => {
  let h: Harness;
  let index: WatchedObjects<KubeObject>;
  const changed: string[] = [];
  beforeEach(async () => {
    h = await newHarness(['a', 'b']);
    await h.store('', 'configmaps').create('a', configMap('before'));
    changed.length = 0;
    index = watchObjects({ store: h.store('', 'configmaps'), signal: h.deps.signal, onChange: (ns) => void changed.push(ns) });
  });
  afterEach(() => h.stop());

  it('lists what exists, then follows creates, updates and deletes by namespace', async () => {
    assert.equal(index.synced, false);
    await index.ready();
    assert.equal(index.synced, true);
    assert.deepEqual(index.list('a').map((o) => o.metadata.name), ['before']);
    assert.deepEqual(index.list('b'), []);
    const store = h.store('', 'configmaps');
    await store.create('b', configMap('later'));
    await until(() => index.get('b', 'later') !== undefined);
    assert.deepEqual(changed, ['b']);
    await store.update('b', 'later', (o) => ({ ...o!, data: { k: 'v' } }) as KubeObject);
    await until(() => (index.get('b', 'later') as { data?: Record<string, string> }).data?.k === 'v');
    assert.deepEqual(index.all().map((o) => o.metadata.name).sort(), ['before', 'later']);
    await store.delete('a', 'before');
    await until(() => index.list('a').length === 0);
    assert.equal(index.get('a', 'before'), undefined);
  });

  it('hands out the same array for a namespace until something there changes', async () => {
    await index.ready();
    const first = index.list('a');
    assert.equal(index.list('a'), first);
    await h.store('', 'configmaps').create('a', configMap('second'));
    await until(() => index.list('a') !== first);
    assert.equal(index.list('a').length, 2);
  });
});

/** A store whose first watch fails, and whose later watches list `items`, delete the first, then end. */
function flakyStore(items: KubeObject[]): { store: GenericStore; watches: () => number } {
  let watches = 0;
  const store = {
    async watch() {
      watches += 1;
      if (watches === 1) throw new Error('storage unavailable');
      return {
        initialEvents: items.length,
        startRevision: 1,
        cancel: () => {},
        async *[Symbol.asyncIterator]() {
          for (const o of items) yield { type: 'ADDED' as const, object: o, revision: 1 };
          yield { type: 'DELETED' as const, object: items[0]!, revision: 2 };
        },
      };
    },
  } as unknown as GenericStore;
  return { store, watches: () => watches };
}

describe('watchObjects after a failed watch', () => {
  it('watches again, follows the events after the initial list, and moves its version', async () => {
    const controller = new AbortController();
    // The retry pause is an unref'd timer (it must not keep a server alive): hold the test's event loop open meanwhile.
    const keepAlive = setInterval(() => {}, 1_000);
    try {
      const { store, watches } = flakyStore([configMap('a'), configMap('b')]);
      const watched = watchObjects({ store, signal: controller.signal, retryDelayMs: 5 });
      await watched.ready();
      assert.ok(watches() >= 2);
      await until(() => watched.get('', 'a') === undefined);
      assert.ok(watched.get('', 'b') !== undefined);
      assert.ok(watched.version >= 2);
    } finally {
      controller.abort();
      clearInterval(keepAlive);
    }
  });
});

describe('watchObjects while its watch keeps failing', () => {
  it('retries without piling listeners on the stop signal', async () => {
    const controller = new AbortController();
    const keepAlive = setInterval(() => {}, 1_000);
    let watches = 0;
    const store = {
      async watch() {
        watches += 1;
        throw new Error('storage unavailable');
      },
    } as unknown as GenericStore;
    try {
      watchObjects({ store, signal: controller.signal, retryDelayMs: 1 });
      await until(() => watches >= 20);
      assert.ok(getEventListeners(controller.signal, 'abort').length <= 1, `${getEventListeners(controller.signal, 'abort').length} listeners after ${watches} watches`);
    } finally {
      controller.abort();
      clearInterval(keepAlive);
    }
  });
});

describe('newLiveLookup', () => {
  it('keeps an answer for the TTL, reads again after it, and forgets a namespace on demand', async () => {
    let clock = 0;
    let reads = 0;
    const live = newLiveLookup<string>({ ttlMs: 100, now: () => clock });
    const read = async (): Promise<string[]> => [`read ${++reads}`];
    assert.deepEqual(await live.lookup('ns', read), ['read 1']);
    clock = 99;
    assert.deepEqual(await live.lookup('ns', read), ['read 1']);
    assert.deepEqual(await live.lookup('other', read), ['read 2']);
    clock = 100;
    assert.deepEqual(await live.lookup('ns', read), ['read 3']);
    live.forget('ns');
    assert.deepEqual(await live.lookup('ns', read), ['read 4']);
  });
});
