/**
 * Matching-pod counts per topology value of one spread constraint, kept up
 * to date across scheduling cycles: each cycle re-counts only the nodes whose
 * NodeInfo generation changed since the last one (generations are
 * process-wide and bumped by every change to a node or its pods; with the
 * snapshot's change feed only those nodes are visited), so that
 * PreFilter no longer walks every pod of the cluster per pod to schedule.
 * Entries are keyed by namespace, selector, the constraint's topology key
 * and the topology keys a node needs to be eligible; a few are kept (LRU).
 */
import type { NodeInfo } from '../../framework/node-info.js';
import { ChangedNodes, type ChangeFeed } from '../helper/changed-nodes.js';
import { countPodsMatchSelector, nodeLabelsMatchSpreadConstraints, type SpreadConstraint } from './constraints.js';

interface NodeEntry {
  generation: number;
  /** The node's topology value, or undefined when it lacks one of the keys (not counted). */
  value: string | undefined;
  count: number;
  stamp: number;
}

class ConstraintCounts {
  private readonly nodes = new Map<string, NodeEntry>();
  /** Topology value → matching pods, over the eligible nodes. */
  readonly counts = new Map<string, number>();
  /** Topology value → eligible nodes (a value is a domain while it has one). */
  private readonly nodesPerValue = new Map<string, number>();
  private stamp = 0;
  private readonly changes = new ChangedNodes();

  update(all: readonly NodeInfo[], constraints: readonly SpreadConstraint[], c: SpreadConstraint, namespace: string, feed: ChangeFeed | undefined): void {
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
        this.subtract(entry);
      }
      const labels = node.metadata.labels;
      const value = nodeLabelsMatchSpreadConstraints(labels, constraints) ? labels![c.topologyKey]! : undefined;
      const count = value === undefined ? 0 : countPodsMatchSelector(nodeInfo.pods, c, namespace);
      if (entry === undefined) {
        visited++;
        const fresh: NodeEntry = { generation: nodeInfo.generation, value, count, stamp };
        this.nodes.set(name, fresh);
        this.add(fresh);
      } else {
        entry.generation = nodeInfo.generation;
        entry.value = value;
        entry.count = count;
        this.add(entry);
      }
    }
    if (!full || visited === this.nodes.size) return;
    for (const [name, entry] of this.nodes) {
      if (entry.stamp === stamp) continue;
      this.subtract(entry);
      this.nodes.delete(name);
    }
  }

  private add(entry: NodeEntry): void {
    const value = entry.value;
    if (value === undefined) return;
    this.counts.set(value, (this.counts.get(value) ?? 0) + entry.count);
    this.nodesPerValue.set(value, (this.nodesPerValue.get(value) ?? 0) + 1);
  }

  private subtract(entry: NodeEntry): void {
    const value = entry.value;
    if (value === undefined) return;
    const left = (this.nodesPerValue.get(value) ?? 1) - 1;
    if (left === 0) {
      this.nodesPerValue.delete(value);
      this.counts.delete(value);
      return;
    }
    this.nodesPerValue.set(value, left);
    this.counts.set(value, (this.counts.get(value) ?? 0) - entry.count);
  }
}

const DEFAULT_MAX_ENTRIES = 16;

export class SpreadCountsCache {
  private readonly entries = new Map<string, ConstraintCounts>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /**
   * A fresh map of topology value → matching pods of `constraints[i]` in `namespace`
   * over `nodes` (nodes missing any constraint's key are left out), as a full count would give.
   */
  counts(nodes: readonly NodeInfo[], constraints: readonly SpreadConstraint[], i: number, namespace: string, feed?: ChangeFeed): Map<string, number> {
    const c = constraints[i]!;
    const key = [namespace, c.topologyKey, c.selector.matchesNothing() ? '\u0000nothing' : c.selector.toString(), ...constraints.map((k) => k.topologyKey)].join('\u0001');
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = new ConstraintCounts();
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    } else {
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    entry.update(nodes, constraints, c, namespace, feed);
    return new Map(entry.counts);
  }
}
