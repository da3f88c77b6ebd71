/**
 * Keeps a NodeGraph up to date from the API server's own stores (no HTTP):
 * one reflector each over pods, and over persistentvolumes and
 * volumeattachments when this server serves them. A pod update whose node
 * and references did not change leaves the graph alone (the status of
 * running pods changes often). Given storage and the pods' key prefix, pods
 * come straight from storage, bound ones only (bound-pods.ts), instead of
 * through the pods' watch cache.
 */
import type { PersistentVolume, Pod } from 'kubernetes-types/core/v1.js';
import { Reflector, type ReflectorChange, type ReflectorStore } from '../../../../client/cache/reflector.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { StoreLookup } from '../../../endpoints/target.js';
import { newStoreListerWatcher } from '../rbac/store-lister-watcher.js';
import { newBoundPodsListerWatcher, type PodStorageSource } from './bound-pods.js';
import type { NodeGraph } from './graph.js';
import { podConfigMapNames, podPersistentVolumeClaimNames, podResourceClaimNames, podSecretNames } from './pod-references.js';

/** Everything about a pod the graph depends on, as one string. */
function podSignature(pod: Pod): string {
  const sorted = (names: Set<string>): string[] => [...names].sort();
  return JSON.stringify([
    pod.metadata?.uid ?? '',
    pod.spec?.nodeName ?? '',
    pod.spec?.serviceAccountName ?? '',
    sorted(podSecretNames(pod)),
    sorted(podConfigMapNames(pod)),
    sorted(podPersistentVolumeClaimNames(pod)),
    sorted(podResourceClaimNames(pod)),
  ]);
}

const keyOf = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/** A reflector store that tells the graph what was added, changed or deleted (a relist deletes what is no longer there). */
class GraphFeed implements ReflectorStore<KubeObject> {
  private readonly known = new Map<string, string>();
  constructor(
    private readonly signature: (o: KubeObject) => string,
    private readonly set: (o: KubeObject) => void,
    private readonly remove: (o: KubeObject) => void,
  ) {}
  replace(items: readonly KubeObject[]): void {
    const present = new Set(items.map(keyOf));
    for (const key of [...this.known.keys()]) {
      if (present.has(key)) continue;
      const slash = key.indexOf('/');
      this.remove({ metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } } as KubeObject);
      this.known.delete(key);
    }
    for (const o of items) this.put(o);
  }
  apply(change: ReflectorChange<KubeObject>): void {
    if (change.type === 'DELETED') {
      this.remove(change.object);
      this.known.delete(keyOf(change.object));
    } else this.put(change.object);
  }
  progress(): void {}
  private put(o: KubeObject): void {
    const key = keyOf(o);
    const signature = this.signature(o);
    if (this.known.get(key) === signature) return;
    this.known.set(key, signature);
    this.set(o);
  }
}

export interface GraphPopulator {
  /** Resolves once every watched resource has been listed. */
  readonly synced: Promise<void>;
  stop(): void;
}

export interface GraphSources {
  readonly stores: StoreLookup;
  /** Storage and the pods' key prefix: pods are then read from storage, bound ones only; without it, from the pods store. */
  readonly pods?: PodStorageSource;
  readonly onError?: (message: string, error: unknown) => void;
}

export function populateGraph(graph: NodeGraph, sources: GraphSources): GraphPopulator {
  const { stores, onError } = sources;
  const reflectors: Reflector<KubeObject>[] = [];
  const watch = (group: string, resource: string, feed: GraphFeed): void => {
    const store = stores(group, 'v1', resource);
    if (store === undefined) return;
    const lw = resource === 'pods' && sources.pods !== undefined ? newBoundPodsListerWatcher(sources.pods) : newStoreListerWatcher(store);
    reflectors.push(new Reflector(lw, feed, { name: `node authorizer ${resource}`, ...(onError !== undefined ? { onError } : {}) }));
  };
  watch(
    '',
    'pods',
    new GraphFeed(
      (o) => podSignature(o as unknown as Pod),
      (o) => graph.setPod(o as unknown as Pod),
      (o) => graph.deletePod(o.metadata.namespace ?? '', o.metadata.name ?? ''),
    ),
  );
  watch(
    '',
    'persistentvolumes',
    new GraphFeed(
      (o) => JSON.stringify([o.metadata.uid ?? '', (o as unknown as PersistentVolume).spec ?? {}]),
      (o) => graph.setPersistentVolume(o as unknown as PersistentVolume),
      (o) => graph.deletePersistentVolume(o.metadata.name ?? ''),
    ),
  );
  watch(
    'storage.k8s.io',
    'volumeattachments',
    new GraphFeed(
      (o) => String((o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ''),
      (o) => graph.setVolumeAttachment(o.metadata.name ?? '', (o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ''),
      (o) => graph.deleteVolumeAttachment(o.metadata.name ?? ''),
    ),
  );
  for (const r of reflectors) r.start();
  return {
    synced: Promise.all(reflectors.map((r) => r.synced)).then(() => {}),
    stop() {
      for (const r of reflectors) r.stop();
    },
  };
}
