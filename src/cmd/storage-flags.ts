import { Option, type Command } from 'commander';
import type { StorageConfig } from '../storage/open-storage.js';

/** The storage flags, with upstream's names: shared by every subcommand that opens the store. */
export function addStorageFlags(command: Command, defaultDataDir: string): Command {
  return command
    .addOption(new Option('--data-dir <dir>', 'directory for the cluster\'s files').default(defaultDataDir))
    .addOption(
      new Option('--etcd-servers <urls>', 'comma-separated etcd URLs; without it the state lives in <data-dir>/db/state.db (sqlite)'),
    )
    .addOption(new Option('--etcd-prefix <prefix>', 'the prefix of every key in the store').default('/registry'));
}

export interface StorageFlags {
  dataDir: string;
  etcdServers?: string;
  etcdPrefix: string;
}

export function storageConfigFromFlags(flags: StorageFlags): StorageConfig {
  const servers = flags.etcdServers
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return servers !== undefined && servers.length > 0
    ? { dataDir: flags.dataDir, etcdServers: servers }
    : { dataDir: flags.dataDir };
}
