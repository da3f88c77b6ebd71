/**
 * The usage a quota should show (upstream's CalculateUsage): for each hard
 * resource some evaluator tracks, the sum over the namespace's live objects
 * that are in the quota's scopes; zero when none. Names no evaluator knows are
 * left out of status.used, as upstream does.
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import { quotaScopeSelectors, type QuotaEvaluator } from '../../api/quota/evaluator.js';
import { evaluatorFor, resourceOfQuotaName } from '../../api/quota/evaluators.js';
import { addLists, maskList, type ResourceList } from '../../api/quota/resource-list.js';

/** The objects of one resource in one namespace (from an informer's cache or a list). */
export type ListObjects = (group: string, resource: string, namespace: string) => Promise<readonly KubeObject[]>;

export async function calculateUsage(quota: ResourceQuota, hard: ResourceList, list: ListObjects, now: Date): Promise<Record<string, string>> {
  const namespace = quota.metadata?.namespace ?? '';
  const byEvaluator = new Map<QuotaEvaluator, string[]>();
  for (const name of Object.keys(hard)) {
    const target = resourceOfQuotaName(name);
    if (target === undefined) continue;
    const evaluator = evaluatorFor(target.group, target.resource);
    if (evaluator.matchingResources([name]).length === 0) continue;
    byEvaluator.set(evaluator, [...(byEvaluator.get(evaluator) ?? []), name]);
  }
  const selectors = quotaScopeSelectors(quota);
  let used: Record<string, string> = {};
  for (const [evaluator, names] of byEvaluator) {
    let sum: Record<string, string> = Object.fromEntries(names.map((n) => [n, '0']));
    for (const object of await list(evaluator.group, evaluator.resource, namespace)) {
      if (!selectors.every((s) => evaluator.matchesScope(s, object))) continue;
      sum = addLists(sum, maskList(evaluator.usage(object, now), names));
    }
    used = { ...used, ...sum };
  }
  return used;
}
