/**
 * The object-level store every resource's GenericStore talks to: typed
 * objects under keys. ObjectStorage implements it over the byte-level Storage;
 * the watch cache (registry/cacher) implements it again as a decorator that
 * serves lists and watches from memory.
 */
import type { KubeObject } from '../../../machinery/meta.js';
import type { CreateOptions, ObjectListOptions, ObjectListResult, ObjectWatch, ObjectWatchOptions, Predicate, TryUpdate, UpdateOptions } from './object-storage.js';

export interface ObjectStore {
  create(key: string, object: KubeObject, options?: CreateOptions): Promise<KubeObject>;
  get(key: string): Promise<KubeObject | undefined>;
  list(prefix: string, options?: ObjectListOptions): Promise<ObjectListResult>;
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<{ object: KubeObject; created: boolean }>;
  delete(key: string, check?: (current: KubeObject) => void): Promise<KubeObject>;
  watch(prefix: string, fromRevision: number, predicate?: Predicate, options?: ObjectWatchOptions): ObjectWatch;
  currentRevision(): Promise<number>;
}
