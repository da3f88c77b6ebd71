/**
 * Counts per topology pair (topologyKey, value), as upstream's
 * topologyToMatchedTermCount, stored as key → value → count so that a
 * node is checked with one lookup per distinct topology key instead of one
 * per node label. A pair whose count drops to zero is removed, so `size`
 * tells whether any pair is counted at all.
 */
export class TopologyPairCounts {
  private readonly byKey = new Map<string, Map<string, number>>();
  private pairs = 0;

  /** Number of pairs with a non-zero count. */
  get size(): number {
    return this.pairs;
  }

  get(key: string, value: string): number {
    return this.byKey.get(key)?.get(value) ?? 0;
  }

  add(key: string, value: string, delta: number): void {
    let values = this.byKey.get(key);
    if (values === undefined) this.byKey.set(key, (values = new Map()));
    const before = values.get(value);
    const after = (before ?? 0) + delta;
    if (after === 0) {
      if (before !== undefined) {
        values.delete(value);
        this.pairs--;
        if (values.size === 0) this.byKey.delete(key);
      }
      return;
    }
    if (before === undefined) this.pairs++;
    values.set(value, after);
  }

  /** Add `delta` for the pair (key, node's label `key`) if the node has that label. */
  addForNode(labels: Readonly<Record<string, string>> | undefined, key: string, delta: number): void {
    if (labels === undefined || !Object.hasOwn(labels, key)) return;
    this.add(key, labels[key]!, delta);
  }

  /** Whether any pair of the node's labels has a positive count (upstream walks the node's labels; this walks the counted keys). */
  anyPositiveForNode(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (labels === undefined || this.pairs === 0) return false;
    for (const [key, values] of this.byKey) {
      if (!Object.hasOwn(labels, key)) continue;
      if ((values.get(labels[key]!) ?? 0) > 0) return true;
    }
    return false;
  }

  entries(): Array<[string, string, number]> {
    const out: Array<[string, string, number]> = [];
    for (const [key, values] of this.byKey) for (const [value, count] of values) out.push([key, value, count]);
    return out;
  }

  clone(): TopologyPairCounts {
    const copy = new TopologyPairCounts();
    for (const [key, values] of this.byKey) copy.byKey.set(key, new Map(values));
    copy.pairs = this.pairs;
    return copy;
  }
}
