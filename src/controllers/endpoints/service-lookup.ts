/**
 * Which Services select a pod (upstream's GetPodServiceMemberships), read
 * from the Service informer's namespace index. A Service without a selector
 * (an empty selector reads as none, as it does after Go's omitempty) selects
 * nothing: its Endpoints are the user's.
 */
import { NAMESPACE_INDEX, objectKey, type Indexer } from '../../client/cache/interfaces.js';
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
