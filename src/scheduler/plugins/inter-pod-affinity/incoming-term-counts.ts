/**
 * Pods matching one of the incoming pod's required anti-affinity terms, per
 * value of the term's topology key, kept up to date across scheduling cycles:
 * each cycle re-counts only the nodes whose NodeInfo generation changed since
 * the last (generations are process-wide and bumped by every change to a node
 * or its pods; with the snapshot's change feed it visits only those nodes), so that PreFilter no longer matches every pod of the cluster
 * for each pod to schedule. Entries are keyed by the term (namespaces,
 * selector, topology key); a few are kept (LRU).
 */
import type { NodeInfo } from '../../framework/node-info.js';
import type { AffinityTerm } from '../../framework/types.js';
import { ChangedNodes, type ChangeFeed } from '../helper/changed-nodes.js';
import type { PodMatcher } from './filtering.js';

interface NodeEntry {
  generation: number;
  value: string | undefined;
  count: number;
  stamp: number;
}

class TermCounts {
  private readonly nodes = new Map<string, NodeEntry>();
  /** Topology value → matching pods, only values with a positive count. */
  readonly positive = new Map<string, number>();
  private stamp = 0;
  private readonly changes = new ChangedNodes();

  update(all: readonly NodeInfo[], topologyKey: string, matches: PodMatcher, feed: ChangeFeed | undefined): void {
    const stamp = ++this.stamp;
    const { nodes, full } = this.changes.visit(all, feed);
    let visited = 0;
    for (const nodeInfo of nodes) {
      const node = nodeInfo.node;
      if (node === undefined) continue;
      const name = node.metadata.name ?? '';
      const entry = this.nodes.get(name);
      if (entry !== undefined) {
        visited++;
        entry.stamp = stamp;
        if (entry.generation === nodeInfo.generation) continue;
        this.apply(entry, -1);
      }
      const labels = node.metadata.labels;
      const value = labels !== undefined && Object.hasOwn(labels, topologyKey) ? labels[topologyKey]! : undefined;
      let count = 0;
      if (value !== undefined) for (const p of nodeInfo.pods) if (matches(p.pod)) count++;
      if (entry === undefined) {
        visited++;
        const fresh: NodeEntry = { generation: nodeInfo.generation, value, count, stamp };
        this.nodes.set(name, fresh);
        this.apply(fresh, 1);
      } else {
        entry.generation = nodeInfo.generation;
        entry.value = value;
        entry.count = count;
        this.apply(entry, 1);
      }
    }
    if (!full || visited === this.nodes.size) return;
    for (const [name, entry] of this.nodes) {
      if (entry.stamp === stamp) continue;
      this.apply(entry, -1);
      this.nodes.delete(name);
    }
  }

  private apply(entry: NodeEntry, sign: 1 | -1): void {
    if (entry.value === undefined || entry.count === 0) return;
    const num = (this.positive.get(entry.value) ?? 0) + sign * entry.count;
    if (num === 0) this.positive.delete(entry.value);
    else this.positive.set(entry.value, num);
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
