/**
 * NodeName: a pod that names its node (spec.nodeName) fits only that node.
 * PreFilter narrows the cycle to that one node, so Filter runs once.
 */
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, PluginFactory, PreFilterOutcome, PreFilterPlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { skip, unresolvable, type PluginStatus } from '../../framework/status.js';
import type { Node, Pod } from '../../framework/types.js';

export const NAME = 'NodeName';
export const ERR_REASON = "node(s) didn't match the requested node name";

/** Whether the pod may run on the node: it names none, or this one. */
export function fits(pod: Pod, nodeName: string): boolean {
  const wanted = pod.spec?.nodeName ?? '';
  return wanted === '' || wanted === nodeName;
}

export class NodeName implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  preFilter(_state: CycleState, pod: Pod): PreFilterOutcome {
    const wanted = pod.spec?.nodeName ?? '';
    if (wanted === '') return { status: skip() };
    return { result: { nodeNames: new Set([wanted]) } };
  }

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    return fits(pod, nodeInfo.name) ? undefined : unresolvable(ERR_REASON);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' },
        hint: (pod, _old, added) => (fits(pod, (added as Node | undefined)?.metadata.name ?? '') ? QueueingHint.Queue : QueueingHint.Skip),
      },
    ];
  }
}

export const newNodeName: PluginFactory = () => new NodeName();
