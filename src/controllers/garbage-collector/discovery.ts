/**
 * What the garbage collector learns from discovery: the resources to watch,
 * and which resource an owner reference's apiVersion and kind name. The Client contract has no discovery
 * call; the cluster serves exactly the built-in resources (api/resources.ts),
 * so the facts are read from there, as `kubectl api-resources` would list them.
 */
import { BUILTIN_RESOURCES } from '../../api/resources.js';
import type { ResourceInfo } from '../../api/scheme.js';
import type { ResourceRef } from '../../client/rest/interface.js';

/** Upstream's DefaultIgnoredResources: the garbage collector never watches Events. */
const GC_IGNORED = new Set(['/events', 'events.k8s.io/events']);

const toRef = (info: ResourceInfo): ResourceRef => ({
  group: info.group,
  version: info.version,
  resource: info.resource,
  kind: info.kind,
  namespaced: info.namespaced,
});

const hasVerbs = (info: ResourceInfo, verbs: readonly string[]): boolean => verbs.every((v) => info.verbs.includes(v as never));

/** `apps/v1`, or `v1` for the core group. */
export function apiVersionOf(ref: { readonly group: string; readonly version: string }): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}

/** Upstream's GetDeletableResources minus the ignored ones: every resource that supports list, watch and delete. */
export function garbageCollectedResources(resources: readonly ResourceInfo[] = BUILTIN_RESOURCES): ResourceRef[] {
  return resources.filter((r) => hasVerbs(r, ['delete', 'list', 'watch']) && !GC_IGNORED.has(`${r.group}/${r.resource}`)).map(toRef);
}

/** Maps an owner reference's apiVersion and kind to its resource (upstream's REST mapper). */
export type ResourceMapper = (apiVersion: string, kind: string) => ResourceRef | undefined;

export function newResourceMapper(resources: readonly ResourceInfo[] = BUILTIN_RESOURCES): ResourceMapper {
  const byKind = new Map<string, ResourceRef>();
  for (const info of resources) {
    const key = `${apiVersionOf(info)}/${info.kind}`;
    if (!byKind.has(key)) byKind.set(key, toRef(info));
  }
  return (apiVersion, kind) => byKind.get(`${apiVersion}/${kind}`);
}
