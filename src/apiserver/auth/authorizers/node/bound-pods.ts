/**
 * The pods the Node authorizer's graph needs — those bound to a node — read
 * straight from storage rather than through the pods' watch cache: a
 * ListerWatcher (the reflector's interface) over the pods' key prefix that
 * decodes only the values that name a node.
 *
 * Why not the watch cache: the graph ignores a pod until it is bound (upstream's
 * graph populator does the same), but watching through the cache would make the
 * cache hold every pod of the cluster, and on a server nothing else watches pods
 * on, that cost more CPU (the heap it keeps, the collector walking it) than the
 * whole rest of authorization and admission for each pod created.
 *
 * The test on the bytes: storage holds objects as JSON written by JSON.stringify,
 * which never escapes the letters of a field name, so a value without the text
 * `"nodeName":"` followed by a character other than `"` has no non-empty
 * spec.nodeName. A value that has the text is decoded and looked at properly (an
 * annotation named nodeName costs a decode, never a wrong answer). A pod's node
 * never changes once set, so a pod skipped here was never in the graph, and a
 * deletion of such a pod is skipped too.
 */
import type { ListerWatcher, ListSnapshot, ReflectorEvent, WatchSubscription } from '../../../../client/cache/reflector.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { expired } from '../../../../machinery/status.js';
import { isStorageError } from '../../../../storage/errors.js';
import type { KeyValue, Storage } from '../../../../storage/interface.js';

/** Storage and the key prefix of pods (with its trailing slash). */
export interface PodStorageSource {
  readonly storage: Storage;
  readonly prefix: string;
}

const LIST_PAGE = 5000;
/** A skipped event becomes a bookmark once in this many: the reflector's revision stays recent (a re-watch replays little) without a step per pod. */
const BOOKMARK_EVERY = 256;
const NODE_NAME_FIELD = Buffer.from('"nodeName":"');
const QUOTE = 0x22;

/** Could this stored pod name a node? False only when it certainly does not (see the file's comment). */
export function mayBeBound(value: Uint8Array): boolean {
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  for (let at = bytes.indexOf(NODE_NAME_FIELD); at >= 0; at = bytes.indexOf(NODE_NAME_FIELD, at + 1)) {
    if (bytes[at + NODE_NAME_FIELD.length] !== QUOTE) return true;
  }
  return false;
}

function decodePod(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const pod = JSON.parse(Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8')) as KubeObject;
  pod.metadata.resourceVersion = String(revision);
  return pod;
}

const isBound = (pod: KubeObject): boolean => ((pod as { spec?: { nodeName?: string } }).spec?.nodeName ?? '') !== '';

/** The stored pod if it is bound to a node, else undefined (without decoding it when the bytes already tell). */
function boundPod(kv: KeyValue, revision?: number): KubeObject | undefined {
  if (!mayBeBound(kv.value)) return undefined;
  const pod = decodePod(kv, revision);
  return isBound(pod) ? pod : undefined;
}

export function newBoundPodsListerWatcher(source: PodStorageSource): ListerWatcher<KubeObject> {
  const { storage, prefix } = source;
  return {
    async list(): Promise<ListSnapshot<KubeObject>> {
      const items: KubeObject[] = [];
      let page = await storage.list(prefix, { limit: LIST_PAGE });
      const revision = page.revision;
      for (;;) {
        for (const kv of page.items) {
          const pod = boundPod(kv);
          if (pod !== undefined) items.push(pod);
        }
        const last = page.items.at(-1);
        if (!page.more || last === undefined) break;
        page = await storage.list(prefix, { limit: LIST_PAGE, revision, continueFrom: last.key });
      }
      return { items, resourceVersion: String(revision) };
    },

    watch(resourceVersion: string): WatchSubscription<KubeObject> {
      const from = Number(resourceVersion);
      const watch = storage.watch(prefix, from);
      let skipped = 0;
      return {
        cancel: () => watch.cancel(),
        requestProgress: () => watch.requestProgress(),
        async *[Symbol.asyncIterator](): AsyncIterator<ReflectorEvent<KubeObject>> {
          try {
            for await (const event of watch) {
              if (event.type === 'PROGRESS') {
                yield { type: 'BOOKMARK', resourceVersion: String(event.revision) };
                continue;
              }
              const rv = String(event.type === 'PUT' ? event.kv.modRevision : event.revision);
              const pod = event.type === 'PUT' ? boundPod(event.kv) : boundPod(event.prevKv, event.revision);
              if (pod === undefined) {
                if (++skipped % BOOKMARK_EVERY === 0) yield { type: 'BOOKMARK', resourceVersion: rv };
              } else if (event.type === 'DELETE') yield { type: 'DELETED', object: pod, resourceVersion: rv };
              else yield { type: event.prevKv === undefined ? 'ADDED' : 'MODIFIED', object: pod, resourceVersion: rv };
            }
          } catch (e: unknown) {
            if (isStorageError(e, 'Compacted')) throw expired(`too old resource version: ${from} (${e.compactRevision ?? 0})`);
            throw e;
          } finally {
            watch.cancel();
          }
        },
      };
    },
  };
}
