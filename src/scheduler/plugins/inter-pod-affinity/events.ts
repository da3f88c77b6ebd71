/**
 * The cluster events that can make a pod InterPodAffinity rejected
 * schedulable, with upstream's queueing hints (QueueingHints enabled):
 * - an assigned pod added that matches the pod's affinity; updated so that it
 *   starts matching the affinity or stops matching the anti-affinity; deleted
 *   while matching the anti-affinity;
 * - a node added or relabelled so that a topology key of the pod's terms
 *   appears or changes (for anti-affinity, any added node).
 */
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import { PodInfo, type Node, type Pod } from '../../framework/types.js';
import { podMatchesAllAffinityTerms } from './filtering.js';

function asPod(object: unknown): Pod | undefined {
  return object === undefined || object === null ? undefined : (object as Pod);
}

function asNode(object: unknown): Node | undefined {
  return object === undefined || object === null ? undefined : (object as Node);
}

export function isSchedulableAfterPodChange(pod: Pod, oldObject: unknown, newObject: unknown): QueueingHint {
  const original = asPod(oldObject);
  const modified = asPod(newObject);
  if ((modified !== undefined && (modified.spec?.nodeName ?? '') === '') || (original !== undefined && (original.spec?.nodeName ?? '') === '')) {
    return QueueingHint.Skip;
  }
  let info: PodInfo;
  try {
    info = new PodInfo(pod);
  } catch {
    return QueueingHint.Queue;
  }
  const terms = info.requiredAffinityTerms;
  const antiTerms = info.requiredAntiAffinityTerms;
  if (original !== undefined && modified !== undefined) {
    if (!podMatchesAllAffinityTerms(terms, original) && podMatchesAllAffinityTerms(terms, modified)) return QueueingHint.Queue;
    if (podMatchesAllAffinityTerms(antiTerms, original) && !podMatchesAllAffinityTerms(antiTerms, modified)) return QueueingHint.Queue;
    return QueueingHint.Skip;
  }
  if (modified !== undefined) return podMatchesAllAffinityTerms(terms, modified) ? QueueingHint.Queue : QueueingHint.Skip;
  if (original === undefined) return QueueingHint.Queue;
  return podMatchesAllAffinityTerms(antiTerms, original) ? QueueingHint.Queue : QueueingHint.Skip;
}

function label(node: Node | undefined, key: string): string | undefined {
  const labels = node?.metadata.labels;
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

export function isSchedulableAfterNodeChange(pod: Pod, oldObject: unknown, newObject: unknown): QueueingHint {
  const original = asNode(oldObject);
  const modified = asNode(newObject);
  if (modified === undefined) return QueueingHint.Skip;
  let info: PodInfo;
  try {
    info = new PodInfo(pod);
  } catch {
    return QueueingHint.Queue;
  }
  for (const term of info.requiredAffinityTerms) {
    const after = label(modified, term.topologyKey);
    if (original === undefined) {
      if (after !== undefined) return QueueingHint.Queue;
      continue;
    }
    const before = label(original, term.topologyKey);
    if (before === undefined && after !== undefined) return QueueingHint.Queue;
    if (before !== undefined && after !== undefined && before !== after) return QueueingHint.Queue;
  }
  for (const term of info.requiredAntiAffinityTerms) {
    // A new node may join a topology free of the pods this pod avoids: always worth a try.
    if (original === undefined) return QueueingHint.Queue;
    const before = label(original, term.topologyKey);
    const after = label(modified, term.topologyKey);
    if (before !== undefined && after === undefined) return QueueingHint.Queue;
    if (before !== undefined && after !== undefined && before !== after) return QueueingHint.Queue;
  }
  return QueueingHint.Skip;
}

export function interPodAffinityEvents(): ClusterEventWithHint[] {
  return [
    {
      event: { resource: 'Pod', actionType: ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete, label: 'AssignedPodChange' },
      hint: isSchedulableAfterPodChange,
    },
    {
      event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeLabel, label: 'NodeAddOrLabelChange' },
      hint: isSchedulableAfterNodeChange,
    },
  ];
}
