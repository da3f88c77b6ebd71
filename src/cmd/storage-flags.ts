import { InvalidArgumentError, Option, type Command } from 'commander';
import type { StorageConfig } from '../storage/open-storage.js';

/** The storage flags, with upstream's names (and k3s's --datastore): shared by every subcommand that opens the store. */
export function addStorageFlags(command: Command, defaultDataDir: string): Command {
  return command
    .addOption(new Option('--data-dir <dir>', 'directory for the cluster\'s files').default(defaultDataDir))
    .addOption(
      new Option('--etcd-servers <urls>', 'comma-separated etcd URLs; without it the state lives in <data-dir>/db/state.db (sqlite)'),
    )
    .addOption(
      new Option('--datastore <url>', 'where the state lives, as a URL: etcd://HOST:PORT[,HOST:PORT] (the same as --etcd-servers http://HOST:PORT,…) or sqlite:// (the embedded <data-dir>/db/state.db, the default)').argParser(
        (value: string) => {
          try {
            parseDatastore(value);
          } catch (e: unknown) {
            throw new InvalidArgumentError((e as Error).message);
          }
          return value;
        },
      ),
    )
    .addOption(new Option('--etcd-prefix <prefix>', 'the prefix of every key in the store').default('/registry'));
}

export interface StorageFlags {
  dataDir: string;
  etcdServers?: string;
  datastore?: string;
  etcdPrefix: string;
}

export type Datastore = { readonly kind: 'etcd'; readonly servers: readonly string[] } | { readonly kind: 'sqlite' };

/** A --datastore URL: etcd://HOST:PORT[,HOST:PORT] (as http:// etcd URLs) or sqlite:// (the embedded file); throws for anything else. */
export function parseDatastore(value: string): Datastore {
  const etcd = /^etcd:\/\/(.*)$/.exec(value);
  if (etcd !== null) {
    const endpoints = etcd[1]!.split(',').map((s) => s.trim());
    for (const endpoint of endpoints) {
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(endpoint);
      if (match === null || Number(match[2]) < 1 || Number(match[2]) > 65535) {
        throw new Error(`invalid --datastore "${value}": "${endpoint}" is not HOST:PORT (use etcd://HOST:PORT[,HOST:PORT])`);
      }
    }
    return { kind: 'etcd', servers: endpoints.map((e) => `http://${e}`) };
  }
  if (value === 'sqlite://' || value === 'sqlite') return { kind: 'sqlite' };
  if (value.startsWith('sqlite://')) {
    throw new Error(`invalid --datastore "${value}": the embedded store always lives in <data-dir>/db/state.db; choose its place with --data-dir and write sqlite:// alone`);
  }
  throw new Error(`unsupported --datastore "${value}": use etcd://HOST:PORT[,HOST:PORT] or sqlite://`);
}

/** The etcd URLs of --etcd-servers or --datastore etcd://…; undefined for the embedded store. Throws when both are given. */
export function etcdServersFromFlags(flags: Pick<StorageFlags, 'etcdServers' | 'datastore'>): string[] | undefined {
  const fromFlag = flags.etcdServers
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (flags.datastore !== undefined) {
    if (fromFlag !== undefined && fromFlag.length > 0) throw new Error('give --datastore or --etcd-servers, not both');
    const store = parseDatastore(flags.datastore);
    return store.kind === 'etcd' ? [...store.servers] : undefined;
  }
  return fromFlag !== undefined && fromFlag.length > 0 ? fromFlag : undefined;
}

export function storageConfigFromFlags(flags: StorageFlags): StorageConfig {
  const servers = etcdServersFromFlags(flags);
  return servers !== undefined ? { dataDir: flags.dataDir, etcdServers: servers } : { dataDir: flags.dataDir };
}
