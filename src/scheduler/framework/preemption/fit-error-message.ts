/**
 * The text of upstream's FitError for preemption's own diagnosis:
 * `0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.`
 * Each reason of each node's status is counted; nodes without an entry count
 * with the absent-nodes status; the "count reason" strings are sorted as strings.
 */
import type { NodeToStatus } from '../node-to-status.js';

export function noNodesAvailableMessage(numAllNodes: number, statuses: NodeToStatus): string {
  const counts = new Map<string, number>();
  const count = (reason: string, n: number): void => void counts.set(reason, (counts.get(reason) ?? 0) + n);
  for (const [, status] of statuses.entries()) for (const reason of status.reasons) count(reason, 1);
  if (statuses.size < numAllNodes) for (const reason of statuses.absentNodesStatus.reasons) count(reason, numAllNodes - statuses.size);
  let message = `0/${numAllNodes} nodes are available:`;
  const histogram = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  if (histogram.length > 0) message += ` ${histogram.join(', ')}.`;
  return message;
}
