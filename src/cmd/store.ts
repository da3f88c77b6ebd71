/**
 * `k8ts store`: read the cluster's store directly, as etcdctl would: what the
 * API server has written, key by key. Read-only; for learning and debugging.
 */
import { Command, Option } from 'commander';
import type { Storage } from '../storage/interface.js';
import { openStorage } from '../storage/open-storage.js';
import { durationFlag } from './go-duration.js';
import { addStorageFlags, storageConfigFromFlags, type StorageFlags } from './storage-flags.js';

interface StoreFlags extends StorageFlags {
  dialTimeout: number;
}

/** The storage flags, plus etcdctl's --dial-timeout (same 2 s default): a utility should fail fast when etcd is away. */
function addStoreFlags(command: Command): Command {
  return addStorageFlags(command, '.k8ts').addOption(
    new Option('--dial-timeout <duration>', 'how long to wait for etcd to answer').argParser(durationFlag).default(2000, '2s'),
  );
}
import { formatReport, reportStore } from './store-report.js';

async function withStore(flags: StoreFlags, body: (store: Storage) => Promise<void>): Promise<void> {
  const store = await openStorage({ ...storageConfigFromFlags(flags), etcdDialTimeoutMs: flags.dialTimeout });
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

export function storeCommand(): Command {
  const store = new Command('store').description('read the cluster\'s store directly (read-only)');
  const status = addStoreFlags(new Command('status'))
    .description('the current revision and the number of keys per resource')
    .action(async (flags: StoreFlags) =>
      withStore(flags, async (s) => {
        process.stdout.write(`${formatReport(await reportStore(s, flags.etcdPrefix))}\n`);
      }),
    );
  const list = addStoreFlags(new Command('list'))
    .description('list the keys under a prefix with their revisions')
    .argument('[prefix]', 'key prefix (default: the --etcd-prefix)')
    .action(async (prefix: string | undefined, flags: StoreFlags) =>
      withStore(flags, async (s) => {
        const result = await s.list(prefix ?? `${flags.etcdPrefix}/`);
        for (const kv of result.items) {
          process.stdout.write(`${kv.key}\tcreated@${kv.createRevision}\tmodified@${kv.modRevision}\t${kv.value.length}B\n`);
        }
      }),
    );
  const get = addStoreFlags(new Command('get'))
    .description('print the value of one key')
    .argument('<key>', 'the full key, e.g. /registry/namespaces/default')
    .action(async (key: string, flags: StoreFlags) =>
      withStore(flags, async (s) => {
        const kv = await s.get(key);
        if (kv === undefined) {
          process.stderr.write(`error: key "${key}" not found\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`${Buffer.from(kv.value).toString('utf8')}\n`);
      }),
    );
  store.addCommand(status);
  store.addCommand(list);
  store.addCommand(get);
  return store;
}
