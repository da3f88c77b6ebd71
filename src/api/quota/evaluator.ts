/**
 * What quota knows about one resource (upstream's quota.Evaluator): which
 * operations it charges, which quota resource names it tracks, how an object
 * matches a quota's scopes, what it requires of an object (Constraints), and
 * what one object uses. The API server's ResourceQuota admission plugin and
 * the controller manager's resource quota controller share these.
 */
import type { ResourceQuota, ScopedResourceSelectorRequirement } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { ResourceList } from './resource-list.js';

export type QuotaOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface QuotaEvaluator {
  readonly group: string;
  readonly resource: string;
  /** True when a request with this operation (on this subresource, '' for the object itself) is charged. */
  handles(operation: QuotaOperation, subresource: string): boolean;
  /** The names among `names` this evaluator tracks. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object is in a scope (Terminating, BestEffort, PriorityClass, …); false for kinds without scopes. */
  matchesScope(selector: ScopedResourceSelectorRequirement, object: KubeObject): boolean;
  /** Why the object cannot be charged against quota tracking `required` (upstream's `must specify …`), or undefined. */
  constraints(required: readonly string[], object: KubeObject): string | undefined;
  /** What the object uses. */
  usage(object: KubeObject, now: Date): Record<string, string>;
}

/** `count/pods`, `count/deployments.apps` (upstream's ObjectCountQuotaResourceNameFor). */
export const objectCountName = (group: string, resource: string): string => (group === '' ? `count/${resource}` : `count/${resource}.${group}`);

/** The scopes of a quota as selector requirements: spec.scopes (operator Exists) then spec.scopeSelector. */
export function quotaScopeSelectors(quota: ResourceQuota): ScopedResourceSelectorRequirement[] {
  return [
    ...(quota.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' })),
    ...(quota.spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

/**
 * Upstream's generic.Matches: the quota's status.hard names a resource the
 * evaluator tracks, and the object is in every scope of the quota.
 */
export function quotaMatches(evaluator: QuotaEvaluator, quota: ResourceQuota, object: KubeObject): boolean {
  const hard = Object.keys((quota.status?.hard ?? {}) as ResourceList);
  if (evaluator.matchingResources(hard).length === 0) return false;
  return quotaScopeSelectors(quota).every((selector) => evaluator.matchesScope(selector, object));
}
