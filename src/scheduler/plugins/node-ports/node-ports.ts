/**
 * NodePorts: a pod that asks for host ports fits only nodes where none of
 * them is taken (0.0.0.0 conflicts with any address on the same
 * protocol/port). PreFilter collects the pod's host ports once.
 */
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { CycleState } from '../../framework/cycle-state.js';
import type { EnqueueExtensions, FilterPlugin, PluginFactory, PreFilterOutcome, PreFilterPlugin } from '../../framework/interfaces.js';
import { HostPortInfo, podHostPorts, type NodeInfo } from '../../framework/node-info.js';
import { errorStatus, skip, unschedulable, type PluginStatus } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';

export const NAME = 'NodePorts';
export const ERR_REASON = "node(s) didn't have free ports for the requested pod ports";
const PRE_FILTER_KEY = `PreFilter${NAME}`;

type HostPort = ReturnType<typeof podHostPorts>[number];

/** Whether none of `wanted` conflicts with the ports in use. */
export function fitsPorts(wanted: readonly HostPort[], used: HostPortInfo): boolean {
  for (const p of wanted) if (used.conflicts(p.ip, p.protocol, p.port)) return false;
  return true;
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  preFilter(state: CycleState, pod: Pod): PreFilterOutcome {
    const ports = podHostPorts(pod);
    if (ports.length === 0) return { status: skip() };
    state.write(PRE_FILTER_KEY, ports);
    return {};
  }

  preFilterExtensions(): undefined {
    return undefined;
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const wanted = state.read<HostPort[]>(PRE_FILTER_KEY);
    if (wanted === undefined) return errorStatus(new Error(`error reading "${PRE_FILTER_KEY}" from cycleState: not found`));
    return fitsPorts(wanted, nodeInfo.usedPorts) ? undefined : unschedulable(ERR_REASON);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      // Container ports are immutable, so only the deletion of a pod can free a port.
      { event: { resource: 'Pod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, hint: isSchedulableAfterPodDeleted },
      // Every added node may have the ports free.
      { event: { resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' } },
    ];
  }
}

function isSchedulableAfterPodDeleted(pod: Pod, oldObject: unknown): QueueingHint {
  const deleted = oldObject as Pod | undefined;
  if (deleted === undefined || (deleted.spec?.nodeName ?? '') === '') return QueueingHint.Skip;
  const freed = podHostPorts(deleted);
  if (freed.length === 0) return QueueingHint.Skip;
  const inUse = new HostPortInfo();
  for (const p of freed) inUse.add(p.ip, p.protocol, p.port);
  // Only a deleted pod holding a port this pod wants can help.
  return fitsPorts(podHostPorts(pod), inUse) ? QueueingHint.Skip : QueueingHint.Queue;
}

export const newNodePorts: PluginFactory = () => new NodePorts();
