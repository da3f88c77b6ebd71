/**
 * Allocation state in storage, one key per allocated value: claiming a value
 * is creating its key (create-if-absent, which every backend does atomically:
 * an etcd transaction on the key's create revision, an sqlite unique key), and
 * releasing it is deleting the key, compare-and-swap on its revision, only
 * when the key still names the same owner. No lock in this process is
 * involved, so any number of API servers sharing one store never hand out a
 * value twice.
 *
 * Why one key per value rather than one bitmap key for the whole range
 * (upstream's older layout, `/registry/ranges/serviceips` and
 * `/registry/ranges/servicenodeports`, updated by compare-and-swap):
 * concurrent creates touch different keys and never retry against each
 * other, a claim is a single write, and a release names its owner, so a
 * release that runs twice (a delete racing the update that finishes a
 * deletion) cannot free a value someone else has claimed since. It is also
 * upstream 1.33's own layout for cluster IPs (IPAddress objects).
 *
 * What it does not do (upstream's repair controllers do): a process that dies
 * between claiming a value and writing its Service leaves the key behind, and
 * Services written before allocation existed hold no keys.
 *
 * A list of the prefix only guides the choice of a free value; it is never
 * trusted: a value another server took since is found by its create failing.
 */
import { randomUUID } from 'node:crypto';
import { isStorageError } from '../../../../storage/errors.js';
import { formatTime, type KubeObject } from '../../../../machinery/meta.js';
import type { ObjectStore } from '../../generic/object-store.js';
import type { RandomSource } from './allocation-errors.js';
import type { ServiceRef } from './service-helpers.js';

/** The parentRef an allocation object carries, as upstream's IPAddress `spec.parentRef`. */
export interface ParentReference {
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** How one kind of allocation looks in storage. */
export interface AllocationKind {
  /** The key prefix, ending with `/`, e.g. `/registry/ipaddresses/`. */
  readonly prefix: string;
  /** The object stored under `prefix + name`. */
  newObject(name: string, parentRef: ParentReference): KubeObject;
}

/** A run of values to allocate from: `start` … `start + size - 1`. */
export interface Band {
  readonly start: bigint;
  readonly size: bigint;
}

class NotOwner extends Error {}

/** Random claims tried before listing what is taken. */
const RANDOM_PROBES = 4;

const PAGE = 1000;

export class AllocationKeys {
  constructor(
    private readonly storage: ObjectStore,
    private readonly kind: AllocationKind,
  ) {}

  key(name: string): string {
    return `${this.kind.prefix}${name}`;
  }

  /** Claim `name` for the owner: true if this call created its key, false if the key exists. */
  async claim(name: string, owner: ServiceRef): Promise<boolean> {
    try {
      await this.storage.create(this.key(name), this.kind.newObject(name, parentRefOf(owner)));
      return true;
    } catch (e: unknown) {
      if (isStorageError(e, 'KeyExists')) return false;
      throw e;
    }
  }

  /** Whether `name` is claimed (by anyone). */
  async has(name: string): Promise<boolean> {
    return (await this.storage.get(this.key(name))) !== undefined;
  }

  /** The owner of `name`, or undefined when it is free. */
  async ownerOf(name: string): Promise<ParentReference | undefined> {
    const object = await this.storage.get(this.key(name));
    return object === undefined ? undefined : parentRefIn(object);
  }

  /**
   * Release `name` if `owner` holds it: true when this call deleted the key;
   * false when it was free or another service holds it (nothing is changed then).
   */
  async release(name: string, owner: ServiceRef): Promise<boolean> {
    try {
      await this.storage.delete(this.key(name), (current) => {
        const ref = parentRefIn(current);
        if (ref === undefined || ref.namespace !== owner.namespace || ref.name !== owner.name) throw new NotOwner();
      });
      return true;
    } catch (e: unknown) {
      if (e instanceof NotOwner || isStorageError(e, 'KeyNotFound')) return false;
      throw e;
    }
  }

  /**
   * Claim a free value for the owner, from the first band with room: first a
   * few random probes (one write each while the band is sparse), then a scan
   * from a random point over what a list says is free. Undefined when every
   * band is full.
   */
  async claimNext(bands: readonly Band[], format: (value: bigint) => string, owner: ServiceRef, random: RandomSource): Promise<bigint | undefined> {
    let claimed: Set<string> | undefined;
    for (const band of bands) {
      if (band.size <= 0n) continue;
      const probes = band.size < BigInt(RANDOM_PROBES) ? Number(band.size) : RANDOM_PROBES;
      for (let i = 0; i < probes; i++) {
        const value = band.start + random(band.size);
        if (await this.claim(format(value), owner)) return value;
      }
      claimed ??= await this.claimed();
      const from = random(band.size);
      for (let i = 0n; i < band.size; i++) {
        const value = band.start + ((from + i) % band.size);
        const name = format(value);
        if (claimed.has(name)) continue;
        if (await this.claim(name, owner)) return value;
        claimed.add(name);
      }
    }
    return undefined;
  }

  /** The names claimed now (a hint: a claim can still fail or succeed after it). */
  async claimed(): Promise<Set<string>> {
    const names = new Set<string>();
    let continueKey: string | undefined;
    do {
      const page = await this.storage.list(this.kind.prefix, { limit: PAGE, ...(continueKey !== undefined ? { continueKey } : {}) });
      for (const item of page.items) if (item.metadata.name !== undefined) names.add(item.metadata.name);
      continueKey = page.continueKey;
    } while (continueKey !== undefined);
    return names;
  }
}

export function parentRefOf(owner: ServiceRef): ParentReference {
  return { group: '', resource: 'services', namespace: owner.namespace, name: owner.name };
}

function parentRefIn(object: KubeObject): ParentReference | undefined {
  const spec = object.spec as { parentRef?: ParentReference } | undefined;
  return spec?.parentRef;
}

/** The metadata every allocation object starts with. */
export function allocationMeta(name: string, labels?: Record<string, string>): KubeObject['metadata'] {
  return { name, uid: randomUUID(), creationTimestamp: formatTime(new Date()), ...(labels !== undefined ? { labels } : {}) };
}
