import { after, before } from 'node:test';
import { startEtcd, type EtcdProcess } from '../../../storage/etcd/testing/etcd-process.js';
import { ObjectStorage } from '../generic/object-storage.js';
import { etcdBackend, memoryBackend, sqliteBackend, type TestBackend } from '../generic/testing/backends.js';
import { HISTORY_LIMIT, runObjectStorageConformance } from '../generic/testing/object-storage-conformance.js';
import { Cacher } from './cacher.js';

/** A Cacher for the test's prefix, already listing and watching before the test writes anything. */
const cached = (open: () => Promise<TestBackend>) => async (prefix: string) => {
  const backend = await open();
  const cacher = new Cacher(new ObjectStorage(backend.storage), prefix, { freshnessTimeoutMs: 10_000, maxEvents: HISTORY_LIMIT });
  await cacher.list(prefix);
  return {
    store: cacher,
    storage: backend.storage,
    close: async () => {
      cacher.stop();
      await backend.close();
    },
  };
};

let etcd: EtcdProcess | undefined;
before(async () => {
  etcd = await startEtcd();
});
after(async () => {
  await etcd?.stop();
});

runObjectStorageConformance('Cacher over memory', cached(memoryBackend));
runObjectStorageConformance('Cacher over sqlite', cached(sqliteBackend));
runObjectStorageConformance(
  'Cacher over etcd',
  cached(() => {
    if (etcd === undefined) throw new Error('etcd did not start');
    return etcdBackend(etcd.endpoint);
  }),
);
