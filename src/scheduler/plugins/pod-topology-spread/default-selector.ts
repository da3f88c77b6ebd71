/**
 * The selector of default spread constraints (upstream's helper.DefaultSelector):
 * the union of the selectors of the Services that select the pod and of the
 * ReplicaSet or StatefulSet that controls it, read from informers.
 * ReplicationControllers are not served by k8ts, so they never contribute.
 */
import type { ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import { NAMESPACE_INDEX, type Indexer } from '../../../client/cache/interfaces.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { labelSelectorFromObject, labelSelectorFromSet, type LabelSelector } from '../../../machinery/selectors/label-selector.js';
import type { Pod } from '../../framework/types.js';

export interface WorkloadIndexers {
  readonly services: Indexer;
  readonly replicaSets: Indexer;
  readonly statefulSets: Indexer;
}

/** The requirements of a workload's spec.selector added to `selector` (unchanged when it does not parse or selects nothing). */
function addWorkloadSelector(selector: LabelSelector, workload: (KubeObject & (ReplicaSet | StatefulSet)) | undefined): LabelSelector {
  if (workload === undefined) return selector;
  try {
    const other = labelSelectorFromObject(workload.spec?.selector);
    return other.matchesNothing() ? selector : selector.add(...other.requirements);
  } catch {
    return selector;
  }
}

export function defaultSelector(pod: Pod, indexers: WorkloadIndexers): LabelSelector {
  const namespace = pod.metadata.namespace ?? '';
  const podLabels = pod.metadata.labels;
  const merged: Record<string, string> = {};
  for (const object of indexers.services.byIndex(NAMESPACE_INDEX, namespace)) {
    const serviceSelector = (object as KubeObject & Service).spec?.selector;
    // A service without a selector selects nothing, not everything.
    if (serviceSelector === undefined || serviceSelector === null) continue;
    if (labelSelectorFromSet(serviceSelector).matches(podLabels)) Object.assign(merged, serviceSelector);
  }
  const selector = labelSelectorFromSet(merged);
  const owner = pod.metadata.ownerReferences?.find((r) => r.controller === true);
  if (owner === undefined || owner.apiVersion !== 'apps/v1') return selector;
  const key = `${namespace}/${owner.name}`;
  if (owner.kind === 'ReplicaSet') return addWorkloadSelector(selector, indexers.replicaSets.get(key) as (KubeObject & ReplicaSet) | undefined);
  if (owner.kind === 'StatefulSet') return addWorkloadSelector(selector, indexers.statefulSets.get(key) as (KubeObject & StatefulSet) | undefined);
  return selector;
}
