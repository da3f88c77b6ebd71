/**
 * Why a pod fits no node, in upstream's words (framework.FitError and
 * Diagnosis): the message users read in the FailedScheduling event and the
 * PodScheduled condition, e.g.
 *
 *   0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.
 *
 * Shape: "0/N nodes are available:" then either " <PreFilter message>." (when
 * a PreFilter turned the pod down: the per-node statuses would only repeat
 * it) or " <count> <reason>, …." (the reasons of every node, counted and
 * sorted as strings), then " <PostFilter message>" as the PostFilter plugins
 * wrote it (preemption's own message ends with its period).
 */
import type { NodeToStatus } from './node-to-status.js';
import { Code, type Status } from './status.js';

export const NO_NODE_AVAILABLE_MSG = (numAllNodes: number): string => `0/${numAllNodes} nodes are available`;

/** What one scheduling cycle learnt about why the pod fits nowhere (upstream's Diagnosis). */
export interface Diagnosis {
  readonly nodeToStatus: NodeToStatus;
  /** Plugins that turned the pod down (Unschedulable / UnschedulableAndUnresolvable): the queue re-queues it on their events. */
  readonly unschedulablePlugins: Set<string>;
  /** Plugins that returned Pending. */
  readonly pendingPlugins: Set<string>;
  /** The PreFilter rejection's message, when a PreFilter turned the pod down. */
  preFilterMsg: string;
  /** The PostFilter plugins' message (preemption), set after they ran. */
  postFilterMsg: string;
}

export function newDiagnosis(nodeToStatus: NodeToStatus): Diagnosis {
  return { nodeToStatus, unschedulablePlugins: new Set(), pendingPlugins: new Set(), preFilterMsg: '', postFilterMsg: '' };
}

/** Record which plugin rejected the pod (upstream's Diagnosis.AddPluginStatus). */
export function addPluginStatus(diagnosis: Diagnosis, status: Status): void {
  if (status.plugin === '' || !status.isRejected()) return;
  if (status.code === Code.Pending) diagnosis.pendingPlugins.add(status.plugin);
  else diagnosis.unschedulablePlugins.add(status.plugin);
}

/** The error a scheduling cycle ends with when no node fits; `message` is computed when read (the PostFilter message comes last). */
export class FitError extends Error {
  constructor(
    readonly podKey: string,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {
    super();
    this.name = 'FitError';
  }

  override get message(): string {
    return fitErrorMessage(this.numAllNodes, this.diagnosis);
  }
}

export function fitErrorMessage(numAllNodes: number, diagnosis: Diagnosis): string {
  let message = `${NO_NODE_AVAILABLE_MSG(numAllNodes)}:`;
  if (diagnosis.preFilterMsg !== '') {
    message += ` ${diagnosis.preFilterMsg}.`;
  } else {
    const histogram = new Map<string, number>();
    let explicit = 0;
    for (const [, status] of diagnosis.nodeToStatus.entries()) {
      explicit++;
      for (const reason of status.reasons) histogram.set(reason, (histogram.get(reason) ?? 0) + 1);
    }
    if (explicit < numAllNodes) {
      for (const reason of diagnosis.nodeToStatus.absentNodesStatus.reasons) histogram.set(reason, (histogram.get(reason) ?? 0) + numAllNodes - explicit);
    }
    // Go's sort.Strings: byte order, which for these strings is the UTF-16 order of a plain comparison.
    const parts = [...histogram].map(([reason, count]) => `${count} ${reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (parts.length > 0) message += ` ${parts.join(', ')}.`;
  }
  if (diagnosis.postFilterMsg !== '') message += ` ${diagnosis.postFilterMsg}`;
  return message;
}
