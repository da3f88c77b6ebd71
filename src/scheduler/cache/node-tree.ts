/**
 * Node names grouped by zone (upstream's backend/cache nodeTree). list()
 * interleaves the zones round-robin (the first node of each zone, then the
 * second of each, …), so that a scheduling cycle that stops after part of the
 * nodes has still seen every zone.
 */
import type { Node } from '../framework/types.js';

export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_TOPOLOGY_REGION = 'topology.kubernetes.io/region';
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
export const LABEL_FAILURE_DOMAIN_BETA_REGION = 'failure-domain.beta.kubernetes.io/region';

/**
 * A node's zone key (upstream's utilnode.GetZoneKey): region and zone from
 * the beta labels, else the GA ones, joined by a separator no label value
 * contains; '' when the node has neither.
 */
export function zoneKey(node: Node): string {
  const labels = node.metadata.labels;
  if (labels === undefined) return '';
  const zone = labels[LABEL_FAILURE_DOMAIN_BETA_ZONE] ?? labels[LABEL_TOPOLOGY_ZONE] ?? '';
  const region = labels[LABEL_FAILURE_DOMAIN_BETA_REGION] ?? labels[LABEL_TOPOLOGY_REGION] ?? '';
  if (region === '' && zone === '') return '';
  return `${region}:\u0000:${zone}`;
}

export class NodeTree {
  private readonly tree = new Map<string, string[]>();
  /** Zones in the order they first appeared. */
  private zones: string[] = [];
  private count = 0;

  get numNodes(): number {
    return this.count;
  }

  /** False if the node was already there. */
  addNode(node: Node): boolean {
    const zone = zoneKey(node);
    const name = node.metadata.name ?? '';
    const names = this.tree.get(zone);
    if (names === undefined) {
      this.zones.push(zone);
      this.tree.set(zone, [name]);
    } else {
      if (names.includes(name)) return false;
      names.push(name);
    }
    this.count++;
    return true;
  }

  /** False if the node was not in the tree (under its zone). */
  removeNode(node: Node): boolean {
    const zone = zoneKey(node);
    const names = this.tree.get(zone);
    const name = node.metadata.name ?? '';
    const index = names?.indexOf(name) ?? -1;
    if (names === undefined || index < 0) return false;
    names.splice(index, 1);
    if (names.length === 0) {
      this.tree.delete(zone);
      this.zones = this.zones.filter((z) => z !== zone);
    }
    this.count--;
    return true;
  }

  /** A node whose zone labels changed moves to its new zone; true if the tree changed. */
  updateNode(oldNode: Node | undefined, newNode: Node): boolean {
    if (oldNode !== undefined) {
      if (zoneKey(oldNode) === zoneKey(newNode)) return false;
      this.removeNode(oldNode);
    }
    this.addNode(newNode);
    return true;
  }

  /** Every node name, zones interleaved round-robin. */
  list(): string[] {
    const out: string[] = [];
    const lists = this.zones.map((z) => this.tree.get(z) ?? []);
    const longest = Math.max(0, ...lists.map((l) => l.length));
    for (let i = 0; i < longest; i++) {
      for (const names of lists) {
        const name = names[i];
        if (name !== undefined) out.push(name);
      }
    }
    return out;
  }
}
