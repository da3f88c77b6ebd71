/**
 * Which Services select a pod (upstream's GetPodServiceMemberships), read
 * from the Service informer's namespace index. A Service without a selector
 * (an empty selector reads as none, as it does after Go's omitempty) selects
 * nothing: its Endpoints are the user's.
 */
import { NAMESPACE_INDEX, objectKey, type Indexer, type SharedIndexInformer } from '../../client/cache/interfaces.js';
import { jsonEqual } from '../../machinery/meta.js';
import { labelSelectorFromSet } from '../../machinery/selectors/label-selector.js';
import type { PodObject, ServiceObject } from './pod-rules.js';

export const hasSelector = (service: ServiceObject): boolean => Object.keys(service.spec?.selector ?? {}).length > 0;

export function servicesSelectingPod(services: Indexer<ServiceObject>, pod: PodObject): string[] {
  const keys: string[] = [];
  for (const service of services.byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '')) {
    if (!hasSelector(service)) continue;
    if (labelSelectorFromSet(service.spec!.selector!).matches(pod.metadata.labels)) keys.push(objectKey(service));
  }
  return keys;
}

/** The keys of Services to sync after a pod changed from `before` to `after` (either may be absent). */
export function servicesAffectedByPodChange(services: Indexer<ServiceObject>, before: PodObject | undefined, after: PodObject | undefined): string[] {
  const keys = new Set<string>();
  if (before !== undefined) for (const key of servicesSelectingPod(services, before)) keys.add(key);
  if (after !== undefined) for (const key of servicesSelectingPod(services, after)) keys.add(key);
  return [...keys];
}

/** Whether a pod change can change any Endpoints (upstream's podEndpointsChanged plus label changes). */
export function podChangeMatters(before: PodObject, after: PodObject): boolean {
  if (before.metadata.resourceVersion === after.metadata.resourceVersion) return false;
  if (!jsonEqual(before.metadata.labels ?? {}, after.metadata.labels ?? {})) return true;
  if ((before.metadata.deletionTimestamp === undefined) !== (after.metadata.deletionTimestamp === undefined)) return true;
  return (
    !jsonEqual(before.status?.podIP, after.status?.podIP) ||
    !jsonEqual(before.status?.podIPs, after.status?.podIPs) ||
    !jsonEqual(before.status?.phase, after.status?.phase) ||
    !jsonEqual(before.status?.conditions, after.status?.conditions) ||
    before.spec?.nodeName !== after.spec?.nodeName ||
    before.spec?.hostname !== after.spec?.hostname ||
    before.spec?.subdomain !== after.spec?.subdomain ||
    !jsonEqual(before.spec?.containers?.map((c) => c.ports), after.spec?.containers?.map((c) => c.ports))
  );
}

/**
 * The event handlers both the endpoints and the endpointslice controllers
 * need: a Service's own changes, and every pod change that can change a
 * selecting Service's addresses, become that Service's key.
 */
export function enqueueServicesOnChange(
  services: SharedIndexInformer<ServiceObject>,
  pods: SharedIndexInformer<PodObject>,
  enqueue: (serviceKey: string) => void,
): void {
  services.addEventHandler({
    onAdd: (s) => enqueue(objectKey(s)),
    onUpdate: (_o, s) => enqueue(objectKey(s)),
    onDelete: (s) => enqueue(objectKey(s)),
  });
  const enqueueAll = (keys: readonly string[]): void => keys.forEach(enqueue);
  pods.addEventHandler({
    onAdd: (p) => enqueueAll(servicesAffectedByPodChange(services.indexer, undefined, p)),
    onUpdate: (before, after) => {
      if (podChangeMatters(before, after)) enqueueAll(servicesAffectedByPodChange(services.indexer, before, after));
    },
    onDelete: (p) => enqueueAll(servicesAffectedByPodChange(services.indexer, p, undefined)),
  });
}
