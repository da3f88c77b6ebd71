/**
 * NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that
 * tolerate the node.kubernetes.io/unschedulable:NoSchedule taint.
 */
import type { Taint } from 'kubernetes-types/core/v1.js';
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, PluginFactory } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { unresolvable, type PluginStatus } from '../../framework/status.js';
import type { Node, Pod } from '../../framework/types.js';
import { tolerationsTolerateTaint } from '../helper/taints.js';

export const NAME = 'NodeUnschedulable';
export const ERR_REASON_UNKNOWN_CONDITION = 'node(s) had unknown conditions';
export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';

export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
const UNSCHEDULABLE_TAINT: Taint = { key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' };

function toleratesUnschedulable(pod: Pod): boolean {
  return tolerationsTolerateTaint(pod.spec?.tolerations ?? [], UNSCHEDULABLE_TAINT);
}

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const node = nodeInfo.node;
    if (node === undefined) return unresolvable(ERR_REASON_UNKNOWN_CONDITION);
    if (node.spec?.unschedulable !== true) return undefined;
    return toleratesUnschedulable(pod) ? undefined : unresolvable(ERR_REASON_UNSCHEDULABLE);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add | ActionType.UpdateNodeTaint, label: 'NodeAdd|UpdateNodeTaint' },
        hint: (_pod, oldObject, newObject) => {
          const before = oldObject as Node | undefined;
          const after = newObject as Node | undefined;
          const nowSchedulable = after !== undefined && after.spec?.unschedulable !== true;
          // An added schedulable node, or a node that was uncordoned.
          if (nowSchedulable && (before === undefined || before.spec?.unschedulable === true)) return QueueingHint.Queue;
          return QueueingHint.Skip;
        },
      },
      {
        event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodTolerations, label: 'UpdatePodTolerations' },
        hint: (pod, _old, newObject) => {
          const updated = newObject as Pod | undefined;
          if (updated === undefined || updated.metadata.uid !== pod.metadata.uid) return QueueingHint.Skip;
          return toleratesUnschedulable(updated) ? QueueingHint.Queue : QueueingHint.Skip;
        },
      },
    ];
  }
}

export const newNodeUnschedulable: PluginFactory = () => new NodeUnschedulable();
