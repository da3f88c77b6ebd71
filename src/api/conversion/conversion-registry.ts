/**
 * The conversion registry: for every served group/version/kind that has
 * several versions, its kind's conversions. The API server asks it for a
 * `VersionCodec` per served resource; tests and clients use `convert`.
 */
import type { KubeObject } from '../../machinery/meta.js';
import { parseGroupVersion, type GroupVersionKind } from '../scheme.js';
import { gvkKey, withTypeMeta, type InternalObject, type KindConversion, type VersionConversion } from './kind-conversion.js';

/**
 * How one served version of a kind meets storage: the object a client sends
 * or reads is the served version, the strategy works on the internal form,
 * storage holds the storage version.
 */
export interface VersionCodec {
  readonly served: GroupVersionKind;
  readonly storage: GroupVersionKind;
  /** A body of the served version → the internal form. */
  toInternal(served: KubeObject): InternalObject;
  /** The internal form → the served version. */
  toServed(internal: InternalObject): KubeObject;
  /** The internal form → the object to store. */
  toStorage(internal: InternalObject): KubeObject;
  /** A stored object → the internal form. */
  fromStorage(stored: KubeObject): InternalObject;
  /** A stored object → the served version (one step when they are the same version). */
  storageToServed(stored: KubeObject): KubeObject;
}

interface Entry {
  readonly kind: KindConversion;
  readonly version: VersionConversion;
}

export class ConversionRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(kinds: readonly KindConversion[] = []) {
    for (const k of kinds) this.register(k);
  }

  register(kind: KindConversion): void {
    if (!kind.versions.some((v) => gvkKey(v) === gvkKey(kind.storageVersion))) {
      throw new Error(`${kind.internal}: storage version ${gvkKey(kind.storageVersion)} is not one of its versions`);
    }
    for (const version of kind.versions) {
      const key = gvkKey(version);
      if (this.entries.has(key)) throw new Error(`conversion of ${key} registered twice`);
      this.entries.set(key, { kind, version });
    }
  }

  /** Whether objects of this group/version/kind convert through an internal form. */
  has(gvk: GroupVersionKind): boolean {
    return this.entries.has(gvkKey(gvk));
  }

  /** The codec of a served version, or undefined when the kind has a single version. */
  codec(served: GroupVersionKind): VersionCodec | undefined {
    const entry = this.entries.get(gvkKey(served));
    if (entry === undefined) return undefined;
    const storage = this.entries.get(gvkKey(entry.kind.storageVersion))!;
    const sameVersion = storage.version === entry.version;
    return {
      served,
      storage: entry.kind.storageVersion,
      toInternal: (o) => entry.version.toInternal(o),
      toServed: (i) => entry.version.fromInternal(i),
      toStorage: (i) => storage.version.fromInternal(i),
      fromStorage: (o) => storage.version.toInternal(o),
      // Objects read back from storage may carry another apiVersion only if written by an older server; typeMeta is reset either way.
      storageToServed: sameVersion ? (o) => withTypeMeta(served, o) : (o) => entry.version.fromInternal(storage.version.toInternal(o)),
    };
  }

  /** Convert an object (its apiVersion and kind say which version it is) to another version of the same kind. */
  convert(object: KubeObject, to: GroupVersionKind): KubeObject {
    const from = { ...parseGroupVersion(object.apiVersion ?? ''), kind: object.kind ?? '' };
    const source = this.entries.get(gvkKey(from));
    const target = this.entries.get(gvkKey(to));
    if (source === undefined) throw new Error(`no conversion registered for ${gvkKey(from)}`);
    if (target === undefined) throw new Error(`no conversion registered for ${gvkKey(to)}`);
    if (source.kind.internal !== target.kind.internal) throw new Error(`${gvkKey(from)} and ${gvkKey(to)} have different internal forms`);
    return target.version.fromInternal(source.version.toInternal(object));
  }

  /** Every registered version of the internal form `internal`. */
  versionsOf(internal: string): GroupVersionKind[] {
    return [...this.entries.values()].filter((e) => e.kind.internal === internal).map((e) => ({ group: e.version.group, version: e.version.version, kind: e.version.kind }));
  }
}
