/** Quota of pods (upstream pkg/quota/v1/evaluator/core/pods.go). */
import type { Container, Pod, ScopedResourceSelectorRequirement } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import { objectCountName, type QuotaEvaluator } from './evaluator.js';
import { isBestEffort, podLimits, podRequests } from './pod-resources.js';
import { addLists, type ResourceList } from './resource-list.js';

const POD_RESOURCES = [
  objectCountName('', 'pods'),
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const HUGEPAGES = 'hugepages-';
const REQUESTS_HUGEPAGES = 'requests.hugepages-';

/** Upstream: cpu and memory quotas require each container to state them (a mistake it keeps for compatibility). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** Upstream's IsNativeResource: no domain, or a kubernetes.io domain. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** An extended resource as a pod requests it (example.com/gpu). */
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.');
/** An extended resource as a quota names it (requests.example.com/gpu). */
const isExtendedQuotaName = (name: string): boolean => !isNative(name) && name.startsWith('requests.');

/** Usage of a container or a pod from its requests and limits (upstream's podComputeUsageHelper). */
function computeUsage(requests: ResourceList, limits: ResourceList): Record<string, string> {
  const result: Record<string, string> = { pods: '1' };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const request = requests[r];
    if (request !== undefined) {
      result[r] = request;
      result[`requests.${r}`] = request;
    }
    const limit = limits[r];
    if (limit !== undefined) result[`limits.${r}`] = limit;
  }
  for (const [name, request] of Object.entries(requests)) {
    if (name.startsWith(HUGEPAGES)) {
      result[name] = request;
      result[`requests.${name}`] = request;
    }
    if (isExtended(name)) result[`requests.${name}`] = request;
  }
  return result;
}

/** Whether a pod still counts against compute quota: not terminal, not stuck past its grace period. */
export function podCountsAgainstQuota(pod: Pod, now: Date): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion !== undefined && grace !== undefined && now.getTime() > Date.parse(deletion) + grace * 1000) return false;
  return true;
}

function usesCrossNamespaceAffinity(pod: Pod): boolean {
  const terms = [
    ...(pod.spec?.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(pod.spec?.affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm),
    ...(pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(pod.spec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm),
  ];
  return terms.some((t) => (t.namespaces ?? []).length > 0 || t.namespaceSelector !== undefined);
}

/** The PriorityClass scope as a label selector over `{PriorityClass: <name>}`. */
function priorityClassMatches(pod: Pod, selector: ScopedResourceSelectorRequirement): boolean {
  const name = pod.spec?.priorityClassName ?? '';
  const values = selector.values ?? [];
  switch (selector.operator) {
    case 'Exists':
      return name !== '';
    case 'DoesNotExist':
      return name === '';
    case 'In':
      return name !== '' && values.includes(name);
    case 'NotIn':
      return name === '' || !values.includes(name);
    default:
      return false;
  }
}

export function podMatchesScope(selector: ScopedResourceSelectorRequirement, pod: Pod): boolean {
  const terminating = pod.spec?.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds >= 0;
  switch (selector.scopeName) {
    case 'Terminating':
      return terminating;
    case 'NotTerminating':
      return !terminating;
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass':
      return priorityClassMatches(pod, selector);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(pod);
    default:
      return false;
  }
}

/** What one pod uses: count/pods always; compute resources while it is not terminal. */
export function podUsage(pod: Pod, now: Date): Record<string, string> {
  const result: Record<string, string> = { [objectCountName('', 'pods')]: '1' };
  if (!podCountsAgainstQuota(pod, now)) return result;
  return addLists(result, computeUsage(podRequests(pod), podLimits(pod)));
}

export const podEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  // Upstream charges pods at creation (and on the resize subresource); other updates do not change usage it tracks.
  handles: (operation, subresource) => (subresource === '' && operation === 'CREATE') || (subresource === 'resize' && operation === 'UPDATE'),
  matchingResources: (names) => names.filter((n) => POD_RESOURCES.includes(n) || n.startsWith(HUGEPAGES) || n.startsWith(REQUESTS_HUGEPAGES) || isExtendedQuotaName(n)),
  matchesScope: (selector, object) => podMatchesScope(selector, object as Pod),
  constraints(required, object) {
    const pod = object as Pod;
    const requiredSet = required.filter((r) => VALIDATION_SET.has(r));
    const missing = new Map<string, Set<string>>();
    const check = (c: Container): void => {
      const usage = computeUsage((c.resources?.requests ?? {}) as ResourceList, (c.resources?.limits ?? {}) as ResourceList);
      for (const r of requiredSet) {
        if (usage[r] !== undefined) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(c.name);
      }
    };
    for (const c of pod.spec?.containers ?? []) check(c);
    for (const c of pod.spec?.initContainers ?? []) check(c);
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
  usage: (object, now) => podUsage(object as Pod, now),
};
