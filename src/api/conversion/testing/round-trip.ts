/**
 * The conversion round-trip check (upstream's roundtrip fuzz tests, our own
 * way): random objects of every version go through the internal form to every
 * version and back, and through the store's own path (internal → storage
 * version → internal). Lossless is meant as Go means it, where an empty
 * field and an absent one are the same value: every trip keeps every
 * non-empty field, may add or drop only empty ones (null, "", 0, false, {},
 * []), and converting the result again changes nothing at all. A failure
 * names the seed, so `K8TS_TEST_SEED=<seed>` replays it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../machinery/meta.js';
import { groupVersionString, type GroupVersionKind } from '../../scheme.js';
import type { ConversionRegistry } from '../conversion-registry.js';
import { gvkKey } from '../kind-conversion.js';
import type { Prng } from './prng.js';

export interface RoundTripVersion {
  readonly gvk: GroupVersionKind;
  /** A random object of this version (apiVersion and kind are set by the check). */
  generate(prng: Prng): Record<string, unknown>;
}

export interface RoundTripOptions {
  readonly prng: Prng;
  readonly iterations: number;
}

export class RoundTripError extends Error {}

/** Throws a RoundTripError describing the first object that does not survive. */
export function checkRoundTrips(registry: ConversionRegistry, versions: readonly RoundTripVersion[], options: RoundTripOptions): void {
  const { prng } = options;
  for (let i = 0; i < options.iterations; i++) {
    for (const from of versions) {
      const original = { ...from.generate(prng), apiVersion: groupVersionString(from.gvk), kind: from.gvk.kind } as KubeObject;
      const snapshot = structuredClone(original);
      const fail = (path: string, got: unknown): never => {
        throw new RoundTripError(
          `round trip ${path} lost data (seed ${prng.seed}, iteration ${i}; replay with K8TS_TEST_SEED=${prng.seed})\n` +
            `original: ${JSON.stringify(snapshot)}\ngot:      ${JSON.stringify(got)}`,
        );
      };
      const codec = registry.codec(from.gvk);
      if (codec === undefined) throw new RoundTripError(`no conversion registered for ${gvkKey(from.gvk)}`);
      const canonical = codec.toServed(codec.toInternal(original));
      if (!goEquivalent(canonical, snapshot)) fail(`${gvkKey(from.gvk)} → internal → ${gvkKey(from.gvk)}`, canonical);
      const again = codec.toServed(codec.toInternal(structuredClone(canonical)));
      if (!isDeepStrictEqual(again, canonical)) fail(`${gvkKey(from.gvk)} → internal → ${gvkKey(from.gvk)}, twice`, again);
      const stored = codec.toStorage(codec.toInternal(original));
      const viaStorage = codec.storageToServed(structuredClone(stored));
      if (!goEquivalent(viaStorage, canonical)) fail(`${gvkKey(from.gvk)} → storage (${gvkKey(codec.storage)}) → ${gvkKey(from.gvk)}`, viaStorage);
      const viaStorageInternal = codec.toServed(codec.fromStorage(stored));
      if (!goEquivalent(viaStorageInternal, canonical)) fail(`${gvkKey(from.gvk)} → storage → internal → ${gvkKey(from.gvk)}`, viaStorageInternal);
      for (const to of versions) {
        const there = registry.convert(original, to.gvk);
        if (there.apiVersion !== groupVersionString(to.gvk) || there.kind !== to.gvk.kind) fail(`${gvkKey(from.gvk)} → ${gvkKey(to.gvk)} (type meta)`, there);
        const back = registry.convert(structuredClone(there), from.gvk);
        if (!goEquivalent(back, canonical)) fail(`${gvkKey(from.gvk)} → ${gvkKey(to.gvk)} → ${gvkKey(from.gvk)}`, back);
      }
      if (!isDeepStrictEqual(original, snapshot)) fail(`${gvkKey(from.gvk)} (conversion mutated its argument)`, original);
    }
  }
}

/** Go's empty values: what `omitempty` leaves out, and null. */
function isGoEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** Deep-equal once the empty top-level fields are left out of both. */
export function goEquivalent(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const nonEmpty = (o: Readonly<Record<string, unknown>>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => !isGoEmpty(v)));
  return isDeepStrictEqual(nonEmpty(a), nonEmpty(b));
}
