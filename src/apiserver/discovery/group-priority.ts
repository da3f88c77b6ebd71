/**
 * The order in which discovery lists API groups and, within a group, versions.
 * Upstream orders /apis (legacy and aggregated) by each group's APIService
 * `groupPriorityMinimum`, highest first, ties broken by name; versions by
 * `versionPriority`, ties broken by the kube-aware version order (v2 > v1 >
 * v1beta2 > v1beta1 > v1alpha1 > anything else). The priorities below are
 * upstream's built-in ones (kube-apiserver's APIService registration table);
 * a group not in it gets 1000 like a CustomResourceDefinition group.
 */

/** Upstream's `groupPriorityMinimum` of built-in API groups. */
const GROUP_PRIORITY: Readonly<Record<string, number>> = {
  '': 18000,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'apiextensions.k8s.io': 16700,
  'admissionregistration.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
};

/** Priority of a group not registered by upstream (a CRD group's default). */
export const DEFAULT_GROUP_PRIORITY = 1000;

/** The group's `groupPriorityMinimum`. */
export function groupPriority(group: string): number {
  return GROUP_PRIORITY[group] ?? DEFAULT_GROUP_PRIORITY;
}

/** Group names in discovery order: priority descending, then name ascending. */
export function sortGroups(groups: readonly string[]): string[] {
  return [...groups].sort((a, b) => groupPriority(b) - groupPriority(a) || (a < b ? -1 : a > b ? 1 : 0));
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Upstream's kube-aware version comparison: positive when `a` sorts before
 * (is preferred to) `b`. GA beats beta beats alpha; then the major number, then
 * the minor one; versions that are not kube-like sort last, by name.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) {
    if (ma) return 1;
    if (mb) return -1;
    return a < b ? 1 : a > b ? -1 : 0;
  }
  const stage = (m: RegExpExecArray): number => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return (
    stage(ma) - stage(mb) ||
    Number(ma[1]) - Number(mb[1]) ||
    Number(ma[3] ?? 0) - Number(mb[3] ?? 0)
  );
}

/** Versions of one group in discovery order, the preferred one first. */
export function sortVersions(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareKubeAwareVersions(b, a));
}
