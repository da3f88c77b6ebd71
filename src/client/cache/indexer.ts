/**
 * The informer's local copy of a collection: objects by key plus named
 * indexes (value → keys). Every indexer has the namespace and the
 * controller-uid index; more can be added at any time. An update touches only
 * the buckets of the values the object had and has (O(1) per index value),
 * never a scan.
 *
 * Reads (get, list, byIndex) hand out the stored objects themselves: callers
 * must not mutate them (deepCopy first), as the cache contract says.
 *
 * @example
 *   const indexer = newIndexer<Pod>({ byNode: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
 *   indexer.upsert(pod);
 *   indexer.byIndex(NAMESPACE_INDEX, 'default');
 */
import type { KubeObject } from '../../machinery/meta.js';
import { CONTROLLER_UID_INDEX, NAMESPACE_INDEX, objectKey, type IndexFunc, type Indexer } from './interfaces.js';

/** The writable side, which only the informer uses. */
export interface StoreIndexer<T extends KubeObject = KubeObject> extends Indexer<T> {
  /** Insert or replace the object under its key; returns the object it replaced. */
  upsert(object: T): T | undefined;
  /** Remove the object of a key; returns it. */
  remove(key: string): T | undefined;
  /** Replace the whole content; returns the previous content by key. */
  replaceAll(objects: readonly T[]): Map<string, T>;
}

/** The namespace index: cluster-scoped objects are not in it. */
export const namespaceIndexFunc: IndexFunc<KubeObject> = (object) => {
  const namespace = object.metadata.namespace;
  return namespace !== undefined && namespace !== '' ? [namespace] : [];
};

/** The index by the uid of the owner reference with controller=true. */
export const controllerUidIndexFunc: IndexFunc<KubeObject> = (object) => {
  const owner = object.metadata.ownerReferences?.find((ref) => ref.controller === true);
  return owner !== undefined ? [owner.uid] : [];
};

class Index<T extends KubeObject> {
  /** value → keys */
  private readonly buckets = new Map<string, Set<string>>();
  /** key → the values the object was indexed under */
  private readonly valuesByKey = new Map<string, readonly string[]>();

  constructor(readonly indexFunc: IndexFunc<T>) {}

  keysOf(value: string): ReadonlySet<string> | undefined {
    return this.buckets.get(value);
  }

  update(key: string, object: T | undefined): void {
    const oldValues = this.valuesByKey.get(key);
    const newValues = object === undefined ? undefined : dedupe(this.indexFunc(object));
    if (oldValues !== undefined && newValues !== undefined && sameValues(oldValues, newValues)) return;
    if (oldValues !== undefined) {
      for (const value of oldValues) {
        const bucket = this.buckets.get(value);
        if (bucket === undefined) continue;
        bucket.delete(key);
        if (bucket.size === 0) this.buckets.delete(value);
      }
    }
    if (newValues === undefined || newValues.length === 0) {
      this.valuesByKey.delete(key);
      return;
    }
    this.valuesByKey.set(key, newValues);
    for (const value of newValues) {
      let bucket = this.buckets.get(value);
      if (bucket === undefined) this.buckets.set(value, (bucket = new Set()));
      bucket.add(key);
    }
  }

  clear(): void {
    this.buckets.clear();
    this.valuesByKey.clear();
  }
}

function dedupe(values: readonly string[]): readonly string[] {
  return values.length <= 1 ? values : [...new Set(values)];
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

class MapIndexer<T extends KubeObject> implements StoreIndexer<T> {
  private readonly items = new Map<string, T>();
  private readonly indexes = new Map<string, Index<T>>();

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>>) {
    this.addIndexers({ [NAMESPACE_INDEX]: namespaceIndexFunc, [CONTROLLER_UID_INDEX]: controllerUidIndexFunc, ...indexers });
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (index === undefined) throw new Error(`the indexer has no index named "${indexName}"`);
    const keys = index.keysOf(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const key of keys) {
      const object = this.items.get(key);
      if (object !== undefined) out.push(object);
    }
    return out;
  }

  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    for (const [name, indexFunc] of Object.entries(indexers)) {
      const existing = this.indexes.get(name);
      if (existing !== undefined) {
        // Controllers sharing an informer may each add the same index: fine when it is the same function.
        if (existing.indexFunc === indexFunc) continue;
        throw new Error(`the indexer already has a different index named "${name}" (share one module-level index function)`);
      }
      const index = new Index(indexFunc);
      for (const [key, object] of this.items) index.update(key, object);
      this.indexes.set(name, index);
    }
  }

  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const old = this.items.get(key);
    this.items.set(key, object);
    for (const index of this.indexes.values()) index.update(key, object);
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.items.delete(key);
    for (const index of this.indexes.values()) index.update(key, undefined);
    return old;
  }

  replaceAll(objects: readonly T[]): Map<string, T> {
    const previous = new Map(this.items);
    this.items.clear();
    for (const index of this.indexes.values()) index.clear();
    for (const object of objects) this.upsert(object);
    return previous;
  }
}

/** A new, empty indexer with the namespace and controller-uid indexes and any given ones. */
export function newIndexer<T extends KubeObject = KubeObject>(indexers: Readonly<Record<string, IndexFunc<T>>> = {}): StoreIndexer<T> {
  return new MapIndexer<T>(indexers);
}
