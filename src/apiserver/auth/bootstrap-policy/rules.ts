/** Rule builders for writing the bootstrap policy as data. */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

/** A resource rule: verbs on resources of API groups, optionally only the named objects. */
export function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return { apiGroups, resources, verbs, ...(resourceNames !== undefined ? { resourceNames } : {}) };
}

/** A non-resource rule: verbs on URL paths (a trailing * is a prefix). */
export function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { nonResourceURLs, verbs };
}

export const READ = ['get', 'list', 'watch'];
export const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
export const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
/** Events, core and events.k8s.io, as every component records them. */
export const EVENTS = rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);
