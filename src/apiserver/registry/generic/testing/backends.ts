/**
 * Storage backends for the object-storage conformance suite: memory, a sqlite
 * file in a temporary directory, and (given an endpoint) real etcd.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '../../../../storage/interface.js';
import { newEtcdStorage } from '../../../../storage/etcd/etcd-storage.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { openSqliteStorage } from '../../../../storage/sqlite/sqlite-storage.js';

export interface TestBackend {
  readonly storage: Storage;
  close(): Promise<void>;
}

export async function memoryBackend(): Promise<TestBackend> {
  const storage = newMemoryStorage();
  return { storage, close: () => storage.close() };
}

export async function sqliteBackend(): Promise<TestBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-objstore-'));
  const storage = openSqliteStorage({ path: join(dir, 'state.db'), compactIntervalMs: 0 });
  return {
    storage,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function etcdBackend(endpoint: string): Promise<TestBackend> {
  const storage = await newEtcdStorage({ endpoints: [endpoint] });
  return { storage, close: () => storage.close() };
}
