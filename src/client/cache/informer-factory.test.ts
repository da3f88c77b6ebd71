import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { expired } from '../../machinery/status.js';
import { PODS, NODES } from '../rest/resources.js';
import { newFakeClient } from '../testing/fake-client.js';
import { waitFor } from '../testing/wait-for.js';
import { newInformerFactory } from './informer-factory.js';
import { NAMESPACE_INDEX } from './interfaces.js';

const pod = (name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject => ({ metadata: { name, namespace, labels }, spec: {} });

describe('informer factory', () => {
  it('gives the same informer for the same resource and selection, another for another', () => {
    const factory = newInformerFactory(newFakeClient());
    assert.equal(factory.informerFor(PODS), factory.informerFor(PODS));
    assert.equal(factory.informerFor(PODS, { namespace: 'a' }), factory.informerFor(PODS, { namespace: 'a' }));
    assert.notEqual(factory.informerFor(PODS), factory.informerFor(PODS, { namespace: 'a' }));
    assert.notEqual(factory.informerFor(PODS, { labelSelector: 'a=b' }), factory.informerFor(PODS, { fieldSelector: 'a=b' }));
    assert.notEqual(factory.informerFor(PODS), factory.informerFor(NODES));
    factory.stop();
  });

  it('waitForCacheSync waits for start(), then for every informer, including ones asked for after start', async () => {
    const client = newFakeClient();
    client.seed(PODS, [pod('a'), pod('b', 'other')]);
    client.seed(NODES, [{ metadata: { name: 'n1' } }]);
    const factory = newInformerFactory(client);
    const pods = factory.informerFor(PODS);
    let synced = false;
    const waiting = factory.waitForCacheSync().then(() => (synced = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(synced, false, 'nothing synced before start');
    factory.start();
    const nodes = factory.informerFor(NODES);
    await waiting;
    assert.equal(pods.hasSynced, true);
    assert.deepEqual(pods.indexer.byIndex(NAMESPACE_INDEX, 'other').map((p) => p.metadata.name), ['b']);
    await factory.waitForCacheSync();
    assert.equal(nodes.hasSynced, true);
    factory.stop();
  });

  it('waitForCacheSync rejects when the signal aborts first', async () => {
    const factory = newInformerFactory(newFakeClient());
    factory.informerFor(PODS);
    const abort = new AbortController();
    const waiting = factory.waitForCacheSync(abort.signal);
    abort.abort(new Error('shutting down'));
    await assert.rejects(waiting, /shutting down/);
    await assert.rejects(factory.waitForCacheSync(abort.signal), /shutting down/);
  });

  it('follows the fake client through changes, a selection, a dropped watch and a 410 relist', async () => {
    const client = newFakeClient();
    const errors: string[] = [];
    const factory = newInformerFactory(client, { initialBackoffMs: 1, onError: (m) => errors.push(m) });
    const web = factory.informerFor(PODS, { labelSelector: 'app=web' });
    const log: string[] = [];
    web.addEventHandler({
      onAdd: (o) => log.push(`add ${o.metadata.name}`),
      onUpdate: (_a, b) => log.push(`update ${b.metadata.name}`),
      onDelete: (o) => log.push(`delete ${o.metadata.name}`),
    });
    factory.start();
    await factory.waitForCacheSync();
    const pods = client.resource(PODS);
    await pods.create(pod('a', 'default', { app: 'web' }));
    await pods.create(pod('b', 'default', { app: 'db' }));
    await waitFor(() => log.length === 1);
    const a = await pods.get('a', { namespace: 'default' });
    await pods.update({ ...a, metadata: { ...a.metadata, labels: { app: 'db' } } });
    await waitFor(() => log.length === 2);
    assert.deepEqual(log, ['add a', 'delete a']);

    // A dropped watch resumes from the last resourceVersion: nothing lost, nothing doubled.
    client.closeWatches();
    await pods.create(pod('c', 'default', { app: 'web' }));
    await waitFor(() => log.length === 3);
    assert.deepEqual(log.slice(2), ['add c']);

    // A watch that fails with 410 while changes are compacted away: a relist folds them.
    const c = await pods.get('c', { namespace: 'default' });
    client.compact();
    client.closeWatches(expired('too old resource version'));
    await pods.update({ ...c, metadata: { ...c.metadata, annotations: { x: 'y' } } });
    await pods.create(pod('d', 'default', { app: 'web' }));
    await waitFor(() => web.indexer.size === 2 && web.lastSyncResourceVersion === client.resourceVersion);
    assert.deepEqual(web.indexer.keys().sort(), ['default/c', 'default/d']);
    assert.deepEqual(log.slice(3).sort(), ['add d', 'update c']);
    factory.stop();
  });

  it('calls no handler after stop', async () => {
    const client = newFakeClient();
    const factory = newInformerFactory(client);
    const log: string[] = [];
    factory.informerFor(PODS).addEventHandler({ onAdd: (o) => log.push(o.metadata.name ?? '') });
    factory.start();
    await factory.waitForCacheSync();
    factory.stop();
    await client.resource(PODS).create(pod('a'));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(log, []);
    assert.equal(client.openWatches, 0);
  });
});
