/**
 * The resources the namespace controller empties: every namespaced resource
 * that supports delete, from discovery. The Client contract has no discovery
 * call and the cluster serves exactly the built-in resources, so they are
 * read from api/resources.ts, as `kubectl api-resources --namespaced` lists them.
 */
import { BUILTIN_RESOURCES } from '../../api/resources.js';
import type { ResourceInfo } from '../../api/scheme.js';
import type { ResourceRef } from '../../client/rest/interface.js';

export function namespacedDeletableResources(resources: readonly ResourceInfo[] = BUILTIN_RESOURCES): ResourceRef[] {
  return resources
    .filter((r) => r.namespaced && r.verbs.includes('delete'))
    .map((r) => ({ group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced }));
}
