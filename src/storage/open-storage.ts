import { join } from 'node:path';
import type { Storage } from './interface.js';
import { newEtcdStorage } from './etcd/etcd-storage.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';

export interface StorageConfig {
  /** `--etcd-servers`: when given, the cluster's state lives in etcd. */
  readonly etcdServers?: readonly string[];
  /** The data directory; the embedded store is `<dataDir>/db/state.db`. */
  readonly dataDir: string;
  /** `--etcd-compaction-interval` of the embedded store (default 5 minutes; 0 disables it). */
  readonly compactIntervalMs?: number;
  /** How long to wait for etcd to answer before giving up (default: the etcd client's 20 s). */
  readonly etcdDialTimeoutMs?: number;
}

/** A description of where the state lives, for logs and `k8ts store status`. */
export function describeStorage(config: StorageConfig): string {
  return config.etcdServers !== undefined && config.etcdServers.length > 0
    ? `etcd at ${config.etcdServers.join(',')}`
    : `sqlite at ${sqlitePath(config.dataDir)}`;
}

export function sqlitePath(dataDir: string): string {
  return join(dataDir, 'db', 'state.db');
}

/** Open the store the flags ask for: etcd when `--etcd-servers` is set, else the embedded sqlite file. */
export async function openStorage(config: StorageConfig): Promise<Storage> {
  if (config.etcdServers !== undefined && config.etcdServers.length > 0) {
    return newEtcdStorage({
      endpoints: [...config.etcdServers],
      ...(config.etcdDialTimeoutMs === undefined ? {} : { dialTimeoutMs: config.etcdDialTimeoutMs }),
    });
  }
  return openSqliteStorage({
    path: sqlitePath(config.dataDir),
    ...(config.compactIntervalMs === undefined ? {} : { compactIntervalMs: config.compactIntervalMs }),
  });
}
