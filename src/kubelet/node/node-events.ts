/**
 * The Events upstream's kubelet records about its Node: "Starting kubelet."
 * once, and `Node <name> status is now: <reason>` whenever a condition moves
 * (NodeHasSufficientMemory, NodeHasNoDiskPressure, NodeHasSufficientPID,
 * NodeReady, NodeNotReady; the Ready ones only when Ready changes, not when it
 * is first set). The involved object is the Node with uid = its
 * name, as upstream's kubelet refers to its node.
 */
import type { NodeStatus } from 'kubernetes-types/core/v1.js';
import type { EventRecorder } from '../../client/record/interface.js';
import type { KubeObject } from '../../machinery/meta.js';

export const nodeReference = (nodeName: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName, uid: nodeName } });

/** The event reason of a condition's status, as upstream's setters record them. */
function reasonOf(type: string, status: string): string | undefined {
  const reasons: Readonly<Record<string, readonly [string, string]>> = {
    MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
    DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
    PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
    Ready: ['NodeReady', 'NodeNotReady'],
  };
  const pair = reasons[type];
  if (pair === undefined) return undefined;
  const trueMeansFirst = status === 'True';
  return trueMeansFirst ? pair[0] : pair[1];
}

export function recordConditionEvents(recorder: EventRecorder, nodeName: string, status: NodeStatus, previous: NodeStatus | undefined): void {
  for (const c of status.conditions ?? []) {
    const before = previous?.conditions?.find((p) => p.type === c.type);
    if (before !== undefined && before.status === c.status) continue;
    // Upstream's Ready setter records an Event only when an existing Ready condition changes status,
    // never for the condition it first adds (the pressure setters do: their condition starts Unknown).
    if (c.type === 'Ready' && before === undefined) continue;
    const reason = reasonOf(c.type, c.status);
    if (reason !== undefined) recorder.event(nodeReference(nodeName), 'Normal', reason, `Node ${nodeName} status is now: ${reason}`);
  }
}
