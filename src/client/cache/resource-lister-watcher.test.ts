import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeList, KubeObject } from '../../machinery/meta.js';
import { expired, isResourceExpired } from '../../machinery/status.js';
import type { ListOptions, ResourceClient, WatchEvent, WatchOptions, WatchStream } from '../rest/interface.js';
import { PODS } from '../rest/resources.js';
import { newFakeClient } from '../testing/fake-client.js';
import type { ReflectorEvent } from './reflector.js';
import { listerWatcherFor } from './resource-lister-watcher.js';

/** A ResourceClient whose list and watch answers are given, recording the options asked for. */
function scriptedClient(events: WatchEvent<KubeObject>[], error?: unknown): { client: ResourceClient; asked: (ListOptions | WatchOptions)[]; cancelled: () => boolean } {
  const asked: (ListOptions | WatchOptions)[] = [];
  let cancelled = false;
  const base = newFakeClient().resource(PODS);
  // The fake's other verbs stay reachable through the prototype; list and watch are scripted.
  const client: ResourceClient = Object.assign(Object.create(base) as ResourceClient, {
    list: async (options = {}): Promise<KubeList<KubeObject>> => {
      asked.push(options);
      return { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '42' }, items: [{ metadata: { name: 'a', resourceVersion: '40' } }] };
    },
    watch: (options = {}): WatchStream<KubeObject> => {
      asked.push(options);
      return {
        cancel: () => (cancelled = true),
        async *[Symbol.asyncIterator]() {
          yield* events;
          if (error !== undefined) throw error;
        },
      };
    },
  });
  return { client, asked, cancelled: () => cancelled };
}

async function collect(iterable: AsyncIterable<ReflectorEvent<KubeObject>>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of iterable) out.push(e.type === 'BOOKMARK' ? `BOOKMARK@${e.resourceVersion}` : `${e.type} ${e.object.metadata.name ?? ''}@${e.resourceVersion}`);
  return out;
}

describe('listerWatcherFor', () => {
  it('lists with the selection and takes the list resourceVersion', async () => {
    const { client, asked } = scriptedClient([]);
    const snapshot = await listerWatcherFor(client, { namespace: 'ns', labelSelector: 'a=b', fieldSelector: '' }).list();
    assert.equal(snapshot.resourceVersion, '42');
    assert.deepEqual(snapshot.items.map((o) => o.metadata.name), ['a']);
    assert.deepEqual(asked, [{ namespace: 'ns', labelSelector: 'a=b' }]);
  });

  it('watches from the resourceVersion with bookmarks, mapping bookmarks and changes', async () => {
    const { client, asked, cancelled } = scriptedClient([
      { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '43' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '44' } } },
      { type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '45' } } },
      { type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '46' } } },
    ]);
    const subscription = listerWatcherFor(client, { fieldSelector: 'spec.nodeName=n1' }).watch('42');
    assert.deepEqual(await collect(subscription), ['ADDED a@43', 'BOOKMARK@44', 'MODIFIED a@45', 'DELETED a@46']);
    assert.deepEqual(asked, [{ fieldSelector: 'spec.nodeName=n1', resourceVersion: '42', allowWatchBookmarks: true }]);
    subscription.cancel();
    assert.equal(cancelled(), true);
  });

  it('throws the watch error (410 for an expired resourceVersion)', async () => {
    const { client } = scriptedClient([{ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '43' } } }], expired('too old resource version: 1 (40)'));
    await assert.rejects(collect(listerWatcherFor(client).watch('1')), isResourceExpired);
  });
});
