/**
 * The topology pairs where existing pods' required anti-affinity terms select
 * the incoming pod, kept across scheduling cycles for pods that look alike:
 * the answer depends on the incoming pod only through its namespace, its
 * labels and its namespace's labels, so those form the key (replicas of one
 * workload hit the same entry). With the snapshot's change feed
 * (NodeInfoLister.changedSince) each cycle re-matches only the nodes that
 * changed since the last; without one (or when the feed cannot tell) every
 * node is matched afresh. Only nodes with matching terms are remembered. A
 * few entries are kept (LRU).
 */
import type { Labels } from '../../../machinery/selectors/label-selector.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { affinityTermMatches, type Pod } from '../../framework/types.js';
import { ChangedNodes, type ChangeFeed } from '../helper/changed-nodes.js';

type Pairs = ReadonlyArray<readonly [string, string]>;

class PodShapeCounts {
  /** Node name → one [topologyKey, value] per matching term of the node's pods; only nodes with some. */
  private readonly nodes = new Map<string, Pairs>();
  /** topologyKey → value → count, positive counts only. */
  readonly positive = new Map<string, Map<string, number>>();
  private readonly changes = new ChangedNodes();

  /** `all`: the nodes holding pods with required anti-affinity; the feed's changed nodes may hold none (any more). */
  update(all: readonly NodeInfo[], pod: Pod, namespaceLabels: Labels | undefined, feed: ChangeFeed | undefined): void {
    const { nodes, full } = this.changes.visit(all, feed);
    if (full) {
      this.nodes.clear();
      this.positive.clear();
    }
    for (const nodeInfo of nodes) {
      const node = nodeInfo.node;
      if (node === undefined) continue;
      const name = node.metadata.name ?? '';
      if (!full) {
        const before = this.nodes.get(name);
        if (before !== undefined) {
          this.apply(before, -1);
          this.nodes.delete(name);
        }
      }
      const labels = node.metadata.labels;
      if (labels === undefined || nodeInfo.podsWithRequiredAntiAffinity.length === 0) continue;
      let pairs: Array<readonly [string, string]> | undefined;
      for (const existing of nodeInfo.podsWithRequiredAntiAffinity) {
        for (const term of existing.requiredAntiAffinityTerms) {
          if (!Object.hasOwn(labels, term.topologyKey)) continue;
          if (affinityTermMatches(term, pod, namespaceLabels)) (pairs ??= []).push([term.topologyKey, labels[term.topologyKey]!]);
        }
      }
      if (pairs === undefined) continue;
      this.nodes.set(name, pairs);
      this.apply(pairs, 1);
    }
  }

  private apply(pairs: Pairs, sign: 1 | -1): void {
    for (const [key, value] of pairs) {
      let values = this.positive.get(key);
      if (values === undefined) this.positive.set(key, (values = new Map()));
      const num = (values.get(value) ?? 0) + sign;
      if (num === 0) values.delete(value);
      else values.set(value, num);
      if (values.size === 0) this.positive.delete(key);
    }
  }
}

const DEFAULT_MAX_ENTRIES = 16;

function shapeKey(pod: Pod, namespaceLabels: Labels | undefined): string {
  const sorted = (labels: Labels | undefined): string => JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return [pod.metadata.namespace ?? '', sorted(pod.metadata.labels), sorted(namespaceLabels)].join('\u0001');
}

export class ExistingAntiAffinityCache {
  private readonly entries = new Map<string, PodShapeCounts>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** topologyKey → value → pods whose required anti-affinity selects `pod`, over `nodes`; read it before the next call. */
  counts(nodes: readonly NodeInfo[], pod: Pod, namespaceLabels: Labels | undefined, feed?: ChangeFeed): ReadonlyMap<string, ReadonlyMap<string, number>> {
    const key = shapeKey(pod, namespaceLabels);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = new PodShapeCounts();
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    } else {
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    entry.update(nodes, pod, namespaceLabels, feed);
    return entry.positive;
  }
}
