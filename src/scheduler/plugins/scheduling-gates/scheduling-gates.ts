/**
 * SchedulingGates (upstream's schedulinggates plugin): a pod with
 * spec.schedulingGates stays out of the active queue until every gate is
 * removed; the pod's own update that empties the list re-queues it.
 */
import { ActionType, QueueingHint, type ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { EnqueueExtensions, PluginFactory, PreEnqueuePlugin } from '../../framework/interfaces.js';
import { unresolvable, type PluginStatus } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';

export const NAME = 'SchedulingGates';

export class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  readonly name = NAME;

  preEnqueue(pod: Pod): PluginStatus {
    const gates = pod.spec?.schedulingGates ?? [];
    if (gates.length === 0) return undefined;
    // Go prints a []string as [a b].
    return unresolvable(`waiting for scheduling gates: [${gates.map((g) => g.name).join(' ')}]`);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: 'UnscheduledPod', actionType: ActionType.UpdatePodSchedulingGatesEliminated, label: 'UnschedulablePodUpdatePodSchedulingGatesEliminated' },
        hint: (pod, _old, newObject) => ((newObject as Pod | undefined)?.metadata.uid === pod.metadata.uid ? QueueingHint.Queue : QueueingHint.Skip),
      },
    ];
  }
}

export const newSchedulingGates: PluginFactory = () => new SchedulingGates();
