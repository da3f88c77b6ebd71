/**
 * Pods matching one of the incoming pod's required anti-affinity terms, per
 * value of the term's topology key, kept up to date across scheduling cycles:
 * with the snapshot's change feed (NodeInfoLister.changedSince) each cycle
 * re-counts only the nodes that changed since the last, so that PreFilter no
 * longer matches every pod of the cluster for each pod to schedule; without
 * one (or when the feed cannot tell) it counts every node afresh. Only nodes
 * with matching pods are remembered, so that a term seen for a few cycles
 * (one group of replicas) costs one walk and little memory. Entries are keyed
 * by the term (namespaces, selector, topology key); a few are kept (LRU).
 */
import type { NodeInfo } from '../../framework/node-info.js';
import type { AffinityTerm } from '../../framework/types.js';
import { ChangedNodes, type ChangeFeed } from '../helper/changed-nodes.js';
import type { PodMatcher } from './filtering.js';

interface NodeCount {
  readonly value: string;
  readonly count: number;
}

class TermCounts {
  /** Node name → its matching pods, only nodes with some (and the term's topology key). */
  private readonly nodes = new Map<string, NodeCount>();
  /** Topology value → matching pods, only values with a positive count. */
  readonly positive = new Map<string, number>();
  private readonly changes = new ChangedNodes();

  update(all: readonly NodeInfo[], topologyKey: string, matches: PodMatcher, feed: ChangeFeed | undefined): void {
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
          this.apply(before.value, -before.count);
          this.nodes.delete(name);
        }
      }
      const labels = node.metadata.labels;
      if (labels === undefined || !Object.hasOwn(labels, topologyKey)) continue;
      let count = 0;
      for (const p of nodeInfo.pods) if (matches(p.pod)) count++;
      if (count === 0) continue;
      const value = labels[topologyKey]!;
      this.nodes.set(name, { value, count });
      this.apply(value, count);
    }
  }

  private apply(value: string, delta: number): void {
    const num = (this.positive.get(value) ?? 0) + delta;
    if (num === 0) this.positive.delete(value);
    else this.positive.set(value, num);
  }
}

const DEFAULT_MAX_ENTRIES = 16;

/** The cache key of a resolved term: every namespace or the named ones, the selector, the topology key. */
function termKey(term: AffinityTerm): string {
  const namespaces = term.namespaceSelector.matches(undefined) ? '*' : [...term.namespaces].sort().join(',');
  const selector = term.selector.matchesNothing() ? '\u0000nothing' : term.selector.toString();
  return [namespaces, selector, term.topologyKey].join('\u0001');
}

export class IncomingTermCounts {
  private readonly entries = new Map<string, TermCounts>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** Topology value → pods over `nodes` that `matches` (the compiled `term`), positive counts only; read it before the next call. */
  counts(nodes: readonly NodeInfo[], term: AffinityTerm, matches: PodMatcher, feed?: ChangeFeed): ReadonlyMap<string, number> {
    const key = termKey(term);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = new TermCounts();
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    } else {
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    entry.update(nodes, term.topologyKey, matches, feed);
    return entry.positive;
  }
}
