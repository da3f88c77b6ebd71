import { ObjectStorage } from './object-storage.js';
import { memoryBackend, sqliteBackend, type TestBackend } from './testing/backends.js';
import { runObjectStorageConformance } from './testing/object-storage-conformance.js';

const uncached = (open: () => Promise<TestBackend>) => async () => {
  const backend = await open();
  return { store: new ObjectStorage(backend.storage), storage: backend.storage, close: () => backend.close() };
};

runObjectStorageConformance('ObjectStorage over memory', uncached(memoryBackend));
runObjectStorageConformance('ObjectStorage over sqlite', uncached(sqliteBackend));
