/**
 * Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1): the whole of
 * /api or /apis in one APIGroupDiscoveryList, as a pure function of a Scheme.
 * The two versions have the same fields; only `apiVersion` differs.
 *
 * Like upstream, the document is derived from the legacy resource list, so a
 * `responseKind` carries a group and version only when the kind lives in
 * another group-version (deployments/scale → autoscaling/v1 Scale); otherwise
 * both are `""`, exactly as upstream serves them.
 */
import type { Scheme } from '../../api/scheme.js';
import { apiResourcesOf, type APIResource } from './api-resource.js';
import { sortGroups, sortVersions } from './group-priority.js';

export {
  aggregatedContentType,
  negotiateDiscovery,
  type DiscoveryNegotiation,
  type NegotiateDiscoveryOptions,
} from './negotiate-discovery.js';

/** The aggregated discovery API versions k8ts can serve. */
export type DiscoveryVersion = 'v2' | 'v2beta1';

/** Which of the two roots the document describes. */
export type DiscoveryRoot = 'api' | 'apis';

/** `metav1.GroupVersionKind`: all three fields always present. */
export interface GroupVersionKindJSON {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKindJSON;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKindJSON;
  scope: 'Cluster' | 'Namespaced';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources?: APIResourceDiscovery[];
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  /** Upstream's ObjectMeta: `name` omitted for the core group, a null creationTimestamp. */
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${DiscoveryVersion}`;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

const kindOf = (r: APIResource): GroupVersionKindJSON => ({ group: r.group ?? '', version: r.version ?? '', kind: r.kind });

/** Upstream's ConvertGroupVersionIntoToDiscovery: fold `x/y` entries into `x`. */
function toResourceDiscovery(list: readonly APIResource[]): APIResourceDiscovery[] {
  const parents = new Map<string, APIResourceDiscovery>();
  for (const r of list) {
    if (r.name.includes('/')) continue;
    parents.set(r.name, {
      resource: r.name,
      responseKind: kindOf(r),
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName,
      verbs: [...r.verbs],
      ...(r.shortNames ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories ? { categories: [...r.categories] } : {}),
    });
  }
  for (const r of list) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = parents.get(r.name.slice(0, slash));
    if (parent === undefined) throw new Error(`subresource ${r.name} has no parent resource`);
    const sub: APISubresourceDiscovery = { subresource: r.name.slice(slash + 1), responseKind: kindOf(r), verbs: [...r.verbs] };
    parent.subresources = [...(parent.subresources ?? []), sub];
  }
  return [...parents.values()];
}

function groupDiscovery(scheme: Scheme, group: string): APIGroupDiscovery {
  const versions = sortVersions(scheme.versions().filter((gv) => gv.group === group).map((gv) => gv.version)).map(
    (version): APIVersionDiscovery => {
      const resources = toResourceDiscovery(apiResourcesOf(scheme, { group, version }));
      return { version, ...(resources.length > 0 ? { resources } : {}), freshness: 'Current' };
    },
  );
  return { metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null }, versions };
}

/**
 * The aggregated discovery document of /api (the core group alone) or /apis
 * (every named group, in upstream's priority order).
 */
export function newAPIGroupDiscoveryList(scheme: Scheme, root: DiscoveryRoot, version: DiscoveryVersion): APIGroupDiscoveryList {
  const groups = root === 'api' ? (scheme.versions().some((gv) => gv.group === '') ? [''] : []) : sortGroups(scheme.groups());
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => groupDiscovery(scheme, g)),
  };
}
