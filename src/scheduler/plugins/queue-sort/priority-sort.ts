/**
 * PrioritySort (upstream's queuesort plugin): the active queue's order —
 * higher spec.priority first, then the pod that entered the queue earlier.
 */
import type { PluginFactory, QueueSortPlugin, QueuedPodInfo } from '../../framework/interfaces.js';

export const NAME = 'PrioritySort';

export class PrioritySort implements QueueSortPlugin {
  readonly name = NAME;

  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const pa = a.podInfo.pod.spec?.priority ?? 0;
    const pb = b.podInfo.pod.spec?.priority ?? 0;
    return pa > pb || (pa === pb && a.timestamp < b.timestamp);
  }
}

export const newPrioritySort: PluginFactory = () => new PrioritySort();
