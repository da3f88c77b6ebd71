/** Rule builders for writing the bootstrap policy as data. */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

/** Each list sorted and without repeats, as upstream's rule builder stores them. */
const sorted = (items: readonly string[]): string[] => [...new Set(items)].sort();

/** A resource rule: verbs on resources of API groups, optionally only the named objects. */
export function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return { apiGroups: sorted(apiGroups), resources: sorted(resources), verbs: sorted(verbs), ...(resourceNames !== undefined ? { resourceNames: sorted(resourceNames) } : {}) };
}

/** A non-resource rule: verbs on URL paths (a trailing * is a prefix). */
export function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { nonResourceURLs: sorted(nonResourceURLs), verbs: sorted(verbs) };
}

export const READ = ['get', 'list', 'watch'];
export const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
export const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
/** Events, core and events.k8s.io, as every component records them. */
export const EVENTS = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);
