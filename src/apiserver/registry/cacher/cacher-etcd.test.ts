import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../machinery/meta.js';
import { newEtcdStorage, type EtcdStorage } from '../../../storage/etcd/etcd-storage.js';
import { etcdMetric } from '../../../storage/etcd/testing/etcd-metrics.js';
import { startEtcd, type EtcdProcess } from '../../../storage/etcd/testing/etcd-process.js';
import { ObjectStorage, type ObjectWatch } from '../generic/object-storage.js';
import { takeObjectEvents } from '../generic/testing/object-storage-conformance.js';
import { Cacher } from './cacher.js';

const WATCHERS = 1000;
const pod = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' } });

/** Poll etcd's watcher gauge until it reads `expected` (or fail after 30 s with the last reading). */
async function watchersBecome(endpoint: string, expected: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  let last = await etcdMetric(endpoint, 'etcd_debugging_mvcc_watcher_total');
  while (last !== expected) {
    if (Date.now() > deadline) throw new Error(`etcd_debugging_mvcc_watcher_total stayed at ${last}, expected ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    last = await etcdMetric(endpoint, 'etcd_debugging_mvcc_watcher_total');
  }
  return last;
}

describe('watch cache on etcd, counted by etcd itself', () => {
  let etcd: EtcdProcess;
  let storage: EtcdStorage;
  before(async () => {
    etcd = await startEtcd();
    storage = await newEtcdStorage({ endpoints: [etcd.endpoint] });
  });
  after(async () => {
    await storage?.close();
    await etcd?.stop();
  });

  it(`${WATCHERS} watchers of the cache cost etcd one watcher; without the cache, ${WATCHERS}`, async () => {
    const objects = new ObjectStorage(storage);
    const cacher = new Cacher(objects, '/registry/pods/');
    await cacher.list('/registry/pods/');
    let from = await cacher.currentRevision();
    let watches: ObjectWatch[] = Array.from({ length: WATCHERS }, () => cacher.watch('/registry/pods/', from));
    let pending = watches.map((w) => takeObjectEvents(w, 1));
    await cacher.create('/registry/pods/ns/a', pod('a'));
    assert.ok((await Promise.all(pending)).every((events) => events[0]!.object.metadata.name === 'a'));
    assert.equal(await watchersBecome(etcd.endpoint, 1), 1);
    for (const w of watches) w.cancel();
    cacher.stop();
    await watchersBecome(etcd.endpoint, 0);

    // The same watchers straight on storage: one etcd watcher each.
    from = await objects.currentRevision();
    watches = Array.from({ length: WATCHERS }, () => objects.watch('/registry/pods/', from));
    pending = watches.map((w) => takeObjectEvents(w, 1));
    await objects.create('/registry/pods/ns/b', pod('b'));
    await Promise.all(pending);
    assert.equal(await watchersBecome(etcd.endpoint, WATCHERS), WATCHERS);
    for (const w of watches) w.cancel();
    await watchersBecome(etcd.endpoint, 0);
  });
});
