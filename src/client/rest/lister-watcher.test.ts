import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeList, KubeObject } from '../../machinery/meta.js';
import type { ReflectorEvent } from '../cache/reflector.js';
import type { ListOptions, ResourceClient, WatchEvent, WatchOptions, WatchStream } from './interface.js';
import { listerWatcherFor } from './lister-watcher.js';
import { CONFIG_MAPS } from './resources.js';

const cm = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } });

/** A resource client that records list and watch options and serves fixed answers; the other verbs are never called. */
function stubClient(events: WatchEvent<KubeObject>[]): { client: ResourceClient; lists: ListOptions[]; watches: WatchOptions[]; cancelled: () => boolean } {
  const lists: ListOptions[] = [];
  const watches: WatchOptions[] = [];
  let cancelled = false;
  const unused = (): never => assert.fail('not used by the lister-watcher');
  const client: ResourceClient = {
    ref: CONFIG_MAPS,
    list: async (o?: ListOptions): Promise<KubeList<KubeObject>> => {
      lists.push(o ?? {});
      return { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items: [cm('a', '5')] };
    },
    watch: (o?: WatchOptions): WatchStream<KubeObject> => {
      watches.push(o ?? {});
      return {
        cancel: () => void (cancelled = true),
        async *[Symbol.asyncIterator]() {
          yield* events;
        },
      };
    },
    get: unused,
    create: unused,
    update: unused,
    updateStatus: unused,
    patch: unused,
    delete: unused,
    getSubresource: unused,
    createSubresource: unused,
    updateSubresource: unused,
  };
  return { client, lists, watches, cancelled: () => cancelled };
}

describe('listerWatcherFor', () => {
  it('lists with the selection and gives the list resourceVersion', async () => {
    const stub = stubClient([]);
    const lw = listerWatcherFor(stub.client, { namespace: 'ns', labelSelector: 'a=b', fieldSelector: 'metadata.name=a' });
    const snapshot = await lw.list();
    assert.equal(snapshot.resourceVersion, '7');
    assert.deepEqual(snapshot.items.map((o) => o.metadata.name), ['a']);
    assert.deepEqual(stub.lists, [{ namespace: 'ns', labelSelector: 'a=b', fieldSelector: 'metadata.name=a' }]);
  });
  it('watches from a resourceVersion with bookmarks, mapping BOOKMARK events and the others with their resourceVersion', async () => {
    const stub = stubClient([
      { type: 'ADDED', object: cm('b', '8') },
      { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '9' } } },
      { type: 'MODIFIED', object: cm('b', '10') },
      { type: 'DELETED', object: cm('b', '11') },
    ]);
    const lw = listerWatcherFor(stub.client, { namespace: 'ns' });
    const sub = lw.watch('7');
    const got: ReflectorEvent<KubeObject>[] = [];
    for await (const e of sub) got.push(e);
    assert.deepEqual(stub.watches, [{ namespace: 'ns', resourceVersion: '7', allowWatchBookmarks: true }]);
    assert.deepEqual(
      got.map((e) => `${e.type} ${e.resourceVersion}`),
      ['ADDED 8', 'BOOKMARK 9', 'MODIFIED 10', 'DELETED 11'],
    );
    assert.equal((got[0] as { object: KubeObject }).object.metadata.name, 'b');
    sub.cancel();
    assert.equal(stub.cancelled(), true);
  });
});
