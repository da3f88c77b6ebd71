/**
 * Whether one PolicyRule allows a request, as upstream's rbac RuleAllows:
 * verbs and apiGroups match exactly or by `*`; resources by `*`, by
 * `resource/subresource`, or by `*\/subresource`; resourceNames (when the rule
 * has any) must name the object; nonResourceURLs match exactly, by `*`, or by
 * a prefix ending in `*`.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { Attributes } from '../interface.js';

const has = (list: readonly string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

export const verbMatches = (rule: PolicyRule, verb: string): boolean => has(rule.verbs, verb);

export const apiGroupMatches = (rule: PolicyRule, group: string): boolean => has(rule.apiGroups, group);

export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combinedResource) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(a: Pick<Attributes, 'isResourceRequest' | 'verb' | 'apiGroup' | 'resource' | 'subresource' | 'name' | 'path'>, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}
