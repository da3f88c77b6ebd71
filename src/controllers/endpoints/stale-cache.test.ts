import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Indexer } from '../../client/cache/interfaces.js';
import type { EventRecorder } from '../../client/record/interface.js';
import { ENDPOINTS } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import type { KubeObject } from '../../machinery/meta.js';
import { newEndpointsSyncer, type EndpointsObject } from './controller.js';
import type { PodObject, ServiceObject } from './pod-rules.js';
import { testPod, testService } from './testing/objects.js';

/** An informer cache that holds what it is given and never catches up. */
function frozenIndexer<T extends KubeObject>(objects: () => T[]): Indexer<T> {
  const key = (o: T): string => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    get: (k) => objects().find((o) => key(o) === k),
    list: () => objects(),
    keys: () => objects().map(key),
    get size() {
      return objects().length;
    },
    byIndex: (_index, value) => objects().filter((o) => o.metadata.namespace === value),
    addIndexers: () => {},
  };
}

describe('endpoints sync with an Endpoints cache older than its own last update', () => {
  it('retries later (an error, no write, no Event) instead of updating from the version it already replaced', async () => {
    const client = newFakeClient();
    const [stored] = client.seed<EndpointsObject>(ENDPOINTS, [{ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default' }, subsets: [] }]);
    let pods: PodObject[] = [testPod('a', { ip: '10.0.0.1' })];
    const events: string[] = [];
    const recorder: EventRecorder = { event: (_o, _t, reason) => events.push(reason) };
    const sync = newEndpointsSyncer({
      client,
      services: frozenIndexer<ServiceObject>(() => [testService('web')]),
      pods: frozenIndexer<PodObject>(() => pods),
      endpoints: frozenIndexer<EndpointsObject>(() => [stored!]),
      recorder,
    });
    await sync('default/web');
    assert.equal(client.actionsOf('update', 'endpoints').length, 1);

    // Another pod arrives before the cache has seen the update: upstream's staleEndpointsTracker holds the write back.
    pods = [...pods, testPod('b', { ip: '10.0.0.2' })];
    await assert.rejects(sync('default/web'), /endpoints informer cache is out of date, resource version \S+ already processed for endpoints default\/web/);
    assert.equal(client.actionsOf('update', 'endpoints').length, 1);
    assert.deepEqual(events, []);
  });
});
