import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { GenericStore } from '../../../registry/generic/store.js';
import { watchObjects } from './watched-objects.js';

const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

/** A store whose first watch fails, and whose later watches list `items` then end. */
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

describe('watchObjects', () => {
  it('watches again after a failed watch, and follows the events after the initial list', async () => {
    const controller = new AbortController();
    const { store, watches } = flakyStore([object('a'), object('b')]);
    const watched = watchObjects({ store, signal: controller.signal, retryDelayMs: 5 });
    await watched.ready();
    assert.ok(watches() >= 2);
    const deadline = Date.now() + 5_000;
    while (watched.objects().has('a')) {
      if (Date.now() > deadline) assert.fail('the DELETED event was not applied');
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(watched.objects().has('b'));
    assert.ok(watched.version() >= 2);
    controller.abort();
  });
});
