/** Quota of persistent volume claims (upstream pkg/quota/v1/evaluator/core/persistent_volume_claims.go). */
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { objectCountName, type QuotaEvaluator } from './evaluator.js';
import { nanoOf } from './resource-list.js';

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
const PVC_RESOURCES = [objectCountName('', 'persistentvolumeclaims'), 'persistentvolumeclaims', 'requests.storage'];

function storageClassOf(claim: PersistentVolumeClaim): string {
  return claim.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? claim.spec?.storageClassName ?? '';
}

/** What one claim uses: itself and its requested storage, also under its storage class's names. */
export function claimUsage(claim: PersistentVolumeClaim): Record<string, string> {
  const result: Record<string, string> = { [objectCountName('', 'persistentvolumeclaims')]: '1', persistentvolumeclaims: '1' };
  const storageClass = storageClassOf(claim);
  if (storageClass !== '') result[`${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = '1';
  // The larger of the request and what the status says was allocated (a resize in progress).
  const requested = claim.spec?.resources?.requests?.storage;
  const allocated = claim.status?.allocatedResources?.storage;
  const storage = allocated !== undefined && nanoOf(allocated) > nanoOf(requested) ? allocated : requested;
  if (storage !== undefined) {
    result['requests.storage'] = storage;
    if (storageClass !== '') result[`${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage;
  }
  return result;
}

export const persistentVolumeClaimEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  handles: (operation, subresource) => subresource === '' && (operation === 'CREATE' || operation === 'UPDATE'),
  matchingResources: (names) =>
    names.filter(
      (n) => PVC_RESOURCES.includes(n) || (n.includes(STORAGE_CLASS_SUFFIX) && (n.endsWith('/persistentvolumeclaims') || n.endsWith('/requests.storage'))),
    ),
  matchesScope: (selector, object) => {
    // Upstream: claims match the VolumeAttributesClass scope only; k8ts has no such field yet.
    void selector;
    void object;
    return false;
  },
  constraints: () => undefined,
  usage: (object) => claimUsage(object as PersistentVolumeClaim),
};
