/**
 * The shapes of the client-side cache: an {@link Indexer} (the local copy of a
 * collection, with indexes), a {@link SharedIndexInformer} (one list-and-watch
 * feeding one indexer and any number of event handlers) and an
 * {@link InformerFactory} (one informer per resource and selector, shared by
 * every controller of a process).
 *
 * Consistency contract of an informer, towards its handlers:
 * 1. Handlers see the collection's changes in resourceVersion order, each
 *    exactly once; a handler added after start first gets onAdd for every
 *    object in the cache (isInInitialList = true).
 * 2. When a handler runs, the indexer already holds the new state (and no
 *    longer holds a deleted object): a handler may read the indexer and will
 *    never see it behind the event it is handling.
 * 3. After a relist (410 Gone), handlers get the difference between the old
 *    cache and the new list: onAdd, onUpdate or onDelete (with the last state
 *    the cache knew) per object; changes in between are folded, never replayed.
 * 4. With a resync period, onUpdate(obj, obj) is called for every cached
 *    object once per period (level-based controllers use it to re-check).
 * 5. Handlers run synchronously, one at a time, and must not block: enqueue a
 *    key and return. Objects handed to handlers and read from the indexer are
 *    shared: never mutate them (deepCopy first).
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { ResourceRef } from '../rest/interface.js';

/** Returns the index values of an object (none: the object is not in that index). */
export type IndexFunc<T> = (object: T) => readonly string[];

/** Index name of the namespace index every informer has. */
export const NAMESPACE_INDEX = 'namespace';
/** Index name of the index by controller owner uid (metadata.ownerReferences[controller=true].uid) every informer has. */
export const CONTROLLER_UID_INDEX = 'controllerUID';

export interface Indexer<T extends KubeObject = KubeObject> {
  /** By key: `namespace/name` for a namespaced object, `name` for a cluster-scoped one (see objectKey). */
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  readonly size: number;
  /** Objects whose index `indexName` yields `value`; throws for an index never added (a programming error). */
  byIndex(indexName: string, value: string): T[];
  /** Add indexes; allowed before and after start (existing objects are indexed at once). */
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void;
}

export interface EventHandler<T extends KubeObject = KubeObject> {
  onAdd?(object: T, isInInitialList: boolean): void;
  onUpdate?(oldObject: T, newObject: T): void;
  /** With the last state the informer knew. */
  onDelete?(object: T): void;
}

export interface HandlerRegistration {
  remove(): void;
}

export interface SharedIndexInformer<T extends KubeObject = KubeObject> {
  readonly indexer: Indexer<T>;
  addEventHandler(handler: EventHandler<T>, options?: { readonly resyncPeriodMs?: number }): HandlerRegistration;
  /** True once the first list has been delivered. */
  readonly hasSynced: boolean;
  /** Resolves once hasSynced. */
  readonly synced: Promise<void>;
  /** The resourceVersion of the last list, change or bookmark the cache got. */
  readonly lastSyncResourceVersion: string;
}

export interface InformerOptions {
  /** Only this namespace (default: all). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface InformerFactory {
  /** The informer of a resource and selector: the same arguments give the same informer. Starts at once if the factory runs. */
  informerFor<T extends KubeObject = KubeObject>(ref: ResourceRef, options?: InformerOptions): SharedIndexInformer<T>;
  /** Start every informer asked for so far (and any asked for later). */
  start(): void;
  /** Resolves when every started informer has synced; rejects if the signal aborts first. */
  waitForCacheSync(signal?: AbortSignal): Promise<void>;
  /** Stop every informer: no handler is called afterwards. */
  stop(): void;
}

/** The indexer key of an object: `namespace/name`, or `name` when it has no namespace. */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace !== undefined && namespace !== '' ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Split an indexer key back into namespace ('' for cluster-scoped) and name. */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
