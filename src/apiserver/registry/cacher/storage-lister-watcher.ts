/**
 * The watch cache's source: a ListerWatcher (the reflector's interface) over
 * one key prefix of storage. Items carry their storage key. Storage's progress
 * notifications become bookmarks, and a compacted start revision becomes the
 * 410 Expired the reflector answers with a new list.
 */
import type { ListerWatcher, ListSnapshot, ReflectorEvent, WatchSubscription } from '../../../client/cache/reflector.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { expired } from '../../../machinery/status.js';
import { isStorageError } from '../../../storage/errors.js';
import type { Storage } from '../../../storage/interface.js';
import { decode } from '../generic/object-storage.js';
import type { RecentWrites } from './recent-writes.js';

/** An object with the key it is stored under. */
export interface KeyedObject {
  readonly key: string;
  /** For a deletion: the last state, with resourceVersion set to the deletion's revision. */
  readonly object: KubeObject;
}

/** Lists are read in pages of this many keys, all at the first page's revision. */
const LIST_PAGE = 5000;

export function newStorageListerWatcher(storage: Storage, prefix: string, recentWrites?: RecentWrites): ListerWatcher<KeyedObject> {
  return {
    async list(): Promise<ListSnapshot<KeyedObject>> {
      const items: KeyedObject[] = [];
      let page = await storage.list(prefix, { limit: LIST_PAGE });
      const revision = page.revision;
      for (;;) {
        for (const kv of page.items) items.push({ key: kv.key, object: decode(kv) });
        const last = page.items.at(-1);
        if (!page.more || last === undefined) break;
        page = await storage.list(prefix, { limit: LIST_PAGE, revision, continueFrom: last.key });
      }
      return { items, resourceVersion: String(revision) };
    },

    watch(resourceVersion: string): WatchSubscription<KeyedObject> {
      const from = Number(resourceVersion);
      const watch = storage.watch(prefix, from);
      return {
        cancel: () => watch.cancel(),
        requestProgress: () => watch.requestProgress(),
        async *[Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<KeyedObject>> {
          try {
            for await (const event of watch) {
              if (event.type === 'PROGRESS') {
                yield { type: 'BOOKMARK', resourceVersion: String(event.revision) };
              } else if (event.type === 'PUT') {
                const rv = String(event.kv.modRevision);
                const object = recentWrites?.take(event.kv) ?? decode(event.kv);
                yield { type: event.prevKv === undefined ? 'ADDED' : 'MODIFIED', object: { key: event.kv.key, object }, resourceVersion: rv };
              } else {
                yield { type: 'DELETED', object: { key: event.key, object: decode(event.prevKv, event.revision) }, resourceVersion: String(event.revision) };
              }
            }
          } catch (e: unknown) {
            if (isStorageError(e, 'Compacted')) {
              throw expired(`too old resource version: ${from} (${e.compactRevision ?? 0})`);
            }
            throw e;
          } finally {
            watch.cancel();
          }
        },
      };
    },
  };
}
