/**
 * A DaemonSet's pods grouped by the node they are for (upstream's
 * getNodesToDaemonPods), and the order upstream keeps when it must pick one
 * of several pods on a node (podByCreationTimestampAndPhase).
 */
import { targetNodeName } from './node-binding.js';
import type { PodObject } from './types.js';

/** Succeeded or Failed. */
export function isPodTerminal(pod: PodObject): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Pods by target node. A terminal pod that is being deleted is left out
 * (nothing more to do with it) unless includeDeletedTerminal; a pod that
 * names no node is left out.
 */
export function podsByNode(pods: readonly PodObject[], options: { readonly includeDeletedTerminal?: boolean } = {}): Map<string, PodObject[]> {
  const byNode = new Map<string, PodObject[]>();
  for (const pod of pods) {
    if (options.includeDeletedTerminal !== true && isPodTerminal(pod) && pod.metadata.deletionTimestamp) continue;
    const node = targetNodeName(pod);
    if (node === undefined) continue;
    const list = byNode.get(node);
    if (list === undefined) byNode.set(node, [pod]);
    else list.push(pod);
  }
  return byNode;
}

/** Scheduled pods first, then the oldest, then by name; returns a new array. */
export function sortPodsOldestFirst(pods: readonly PodObject[]): PodObject[] {
  return [...pods].sort((a, b) => {
    const as = a.spec?.nodeName ? 0 : 1;
    const bs = b.spec?.nodeName ? 0 : 1;
    if (as !== bs) return as - bs;
    const at = a.metadata.creationTimestamp ?? '';
    const bt = b.metadata.creationTimestamp ?? '';
    if (at !== bt) return Date.parse(at) - Date.parse(bt);
    const an = a.metadata.name ?? '';
    const bn = b.metadata.name ?? '';
    return an < bn ? -1 : an > bn ? 1 : 0;
  });
}
