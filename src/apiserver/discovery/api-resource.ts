/**
 * One group-version's resources as upstream's legacy discovery lists them
 * (`metav1.APIResource`): every resource, then each subresource as
 * `resource/subresource`, sorted by name, verbs sorted. The aggregated
 * document is derived from this list, as upstream derives it.
 */
import type { GroupVersion, ResourceInfo, Scheme, SubresourceInfo, Verb } from '../../api/scheme.js';
import { storageVersionHash } from './storage-version-hash.js';

/**
 * Upstream's `APIResource`, with its fields in upstream's JSON order. `group`
 * and `version` are present only when the kind lives in another group-version
 * than the list (deployments/scale → autoscaling/v1 Scale); `singularName` is
 * `""` for a subresource.
 */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/**
 * Whether a resource is kept in storage (and so has a storage version hash):
 * stored resources can be created and read back. Virtual ones such as
 * `bindings` (create only) have no hash upstream.
 */
export function isStoredResource(r: ResourceInfo): boolean {
  return r.verbs.includes('create') && r.verbs.includes('get');
}

const sortedVerbs = (verbs: readonly Verb[]): string[] => [...new Set(verbs)].sort();

function resourceEntry(r: ResourceInfo): APIResource {
  return {
    name: r.resource,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: sortedVerbs(r.verbs),
    ...(r.shortNames.length > 0 ? { shortNames: [...r.shortNames] } : {}),
    ...(r.categories.length > 0 ? { categories: [...r.categories] } : {}),
    ...(isStoredResource(r) ? { storageVersionHash: hashOfStorageVersion(r) } : {}),
  };
}

/** The hash of the version the resource is stored as (events.k8s.io/v1 events: core/v1 Event's). */
function hashOfStorageVersion(r: ResourceInfo): string {
  const s = r.storageVersion ?? r;
  return storageVersionHash(s.group, s.version, s.kind);
}

function subresourceEntry(r: ResourceInfo, sub: SubresourceInfo): APIResource {
  const foreign = sub.kind.group !== r.group || sub.kind.version !== r.version;
  return {
    name: `${r.resource}/${sub.name}`,
    singularName: '',
    namespaced: r.namespaced,
    ...(foreign ? { group: sub.kind.group, version: sub.kind.version } : {}),
    kind: sub.kind.kind,
    verbs: sortedVerbs(sub.verbs),
  };
}

/** The legacy discovery entries of one group-version, in upstream's order. */
export function apiResourcesOf(scheme: Scheme, gv: GroupVersion): APIResource[] {
  const entries = scheme.resourcesOf(gv).flatMap((r) => [resourceEntry(r), ...r.subresources.map((s) => subresourceEntry(r, s))]);
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
