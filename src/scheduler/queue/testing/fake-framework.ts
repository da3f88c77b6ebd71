/**
 * A Framework for queue unit tests: PrioritySort's order, an optional
 * PreEnqueue function, and the plugins' registered events. Every other
 * extension point throws (the queue never calls them).
 */
import type { ClusterEventWithHint } from '../../framework/cluster-event.js';
import type { Framework, QueuedPodInfo } from '../../framework/interfaces.js';
import type { PluginStatus } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';

export interface FakeFrameworkOptions {
  readonly profileName?: string;
  /** PreEnqueue: return a Status (stamped with its plugin name) to gate the pod. */
  readonly preEnqueue?: (pod: Pod) => PluginStatus;
  /** plugin name → registered events. */
  readonly events?: Readonly<Record<string, readonly ClusterEventWithHint[]>>;
  /** QueueSort (default: PrioritySort's). */
  readonly queueSortLess?: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
}

function notUsed(name: string): () => never {
  return () => {
    throw new Error(`fake framework: ${name} is not used by the queue`);
  };
}

export function prioritySortLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
  const pa = a.podInfo.pod.spec?.priority ?? 0;
  const pb = b.podInfo.pod.spec?.priority ?? 0;
  return pa > pb || (pa === pb && a.timestamp < b.timestamp);
}

export function newFakeFramework(options: FakeFrameworkOptions = {}): Framework & { eventsToRegisterCalls: number } {
  const events = new Map(Object.entries(options.events ?? {}));
  const fw = {
    eventsToRegisterCalls: 0,
    profileName: options.profileName ?? 'default-scheduler',
    percentageOfNodesToScore: undefined,
    queueSortLess: options.queueSortLess ?? prioritySortLess,
    runPreEnqueuePlugins: (pod: Pod): PluginStatus => options.preEnqueue?.(pod),
    eventsToRegister(): ReadonlyMap<string, readonly ClusterEventWithHint[]> {
      fw.eventsToRegisterCalls++;
      return events;
    },
    runPreFilterPlugins: notUsed('runPreFilterPlugins'),
    runPreFilterExtensionAddPod: notUsed('runPreFilterExtensionAddPod'),
    runPreFilterExtensionRemovePod: notUsed('runPreFilterExtensionRemovePod'),
    runFilterPlugins: notUsed('runFilterPlugins'),
    runFilterPluginsWithNominatedPods: notUsed('runFilterPluginsWithNominatedPods'),
    runPostFilterPlugins: notUsed('runPostFilterPlugins'),
    runPreScorePlugins: notUsed('runPreScorePlugins'),
    runScorePlugins: notUsed('runScorePlugins'),
    runReservePluginsReserve: notUsed('runReservePluginsReserve'),
    runReservePluginsUnreserve: notUsed('runReservePluginsUnreserve'),
    runPermitPlugins: notUsed('runPermitPlugins'),
    waitOnPermit: notUsed('waitOnPermit'),
    runPreBindPlugins: notUsed('runPreBindPlugins'),
    runBindPlugins: notUsed('runBindPlugins'),
    runPostBindPlugins: notUsed('runPostBindPlugins'),
    hasFilterPlugins: () => true,
    hasPostFilterPlugins: () => false,
    hasScorePlugins: () => false,
  };
  return fw;
}
