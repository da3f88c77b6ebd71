/**
 * Counts per topology pair (topologyKey, value), as upstream's
 * topologyToMatchedTermCount. Building a fresh map of 5,000 hostnames every
 * cycle costs more than everything else PreFilter does, so values are
 * interned once into dense ids ({@link TopologyValueIds}, shared across
 * cycles) and each cycle only fills typed arrays indexed by id. A pair whose
 * count is zero does not count in `size` (as upstream deletes it), so `size`
 * tells whether any pair is counted at all.
 */

/** Dense ids of topology values, per topology key; only grows (start a new one to shrink). */
export class TopologyValueIds {
  private readonly byKey = new Map<string, Map<string, number>>();
  /** Number of ids handed out, over all keys. */
  size = 0;

  /** The value → id map of a key (created empty when new). */
  idsOf(key: string): Map<string, number> {
    let ids = this.byKey.get(key);
    if (ids === undefined) this.byKey.set(key, (ids = new Map()));
    return ids;
  }

  /** The id of the value under a key, handing out the next one when new. */
  intern(ids: Map<string, number>, value: string): number {
    let id = ids.get(value);
    if (id === undefined) {
      id = ids.size;
      ids.set(value, id);
      this.size++;
    }
    return id;
  }
}

interface KeyCounts {
  readonly ids: Map<string, number>;
  counts: Int32Array;
}

const INITIAL_CAPACITY = 16;

export class TopologyPairCounts {
  private readonly byKey = new Map<string, KeyCounts>();
  private pairs = 0;

  constructor(private readonly ids: TopologyValueIds = new TopologyValueIds()) {}

  /** Number of pairs with a non-zero count. */
  get size(): number {
    return this.pairs;
  }

  get(key: string, value: string): number {
    const kc = this.byKey.get(key);
    if (kc === undefined) return 0;
    const id = kc.ids.get(value);
    return id === undefined || id >= kc.counts.length ? 0 : kc.counts[id]!;
  }

  add(key: string, value: string, delta: number): void {
    if (delta === 0) return;
    let kc = this.byKey.get(key);
    if (kc === undefined) {
      const ids = this.ids.idsOf(key);
      kc = { ids, counts: new Int32Array(Math.max(INITIAL_CAPACITY, ids.size)) };
      this.byKey.set(key, kc);
    }
    const id = this.ids.intern(kc.ids, value);
    if (id >= kc.counts.length) {
      const grown = new Int32Array(Math.max(id + 1, kc.counts.length * 2));
      grown.set(kc.counts);
      kc.counts = grown;
    }
    const before = kc.counts[id]!;
    const after = before + delta;
    kc.counts[id] = after;
    if (before === 0) this.pairs++;
    else if (after === 0) this.pairs--;
  }

  /** Add `delta` for the pair (key, node's label `key`) if the node has that label. */
  addForNode(labels: Readonly<Record<string, string>> | undefined, key: string, delta: number): void {
    if (labels === undefined || !Object.hasOwn(labels, key)) return;
    this.add(key, labels[key]!, delta);
  }

  /** Whether any pair of the node's labels has a positive count (upstream walks the node's labels; this walks the counted keys). */
  anyPositiveForNode(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (labels === undefined || this.pairs === 0) return false;
    for (const [key, kc] of this.byKey) {
      if (!Object.hasOwn(labels, key)) continue;
      const id = kc.ids.get(labels[key]!);
      if (id !== undefined && id < kc.counts.length && kc.counts[id]! > 0) return true;
    }
    return false;
  }

  /** The non-zero pairs, as [key, value, count]. */
  entries(): Array<[string, string, number]> {
    const out: Array<[string, string, number]> = [];
    for (const [key, kc] of this.byKey) {
      for (const [value, id] of kc.ids) {
        const count = id < kc.counts.length ? kc.counts[id]! : 0;
        if (count !== 0) out.push([key, value, count]);
      }
    }
    return out;
  }

  clone(): TopologyPairCounts {
    const copy = new TopologyPairCounts(this.ids);
    for (const [key, kc] of this.byKey) copy.byKey.set(key, { ids: kc.ids, counts: kc.counts.slice() });
    copy.pairs = this.pairs;
    return copy;
  }
}
