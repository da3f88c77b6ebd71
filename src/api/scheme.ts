/**
 * The scheme: which kinds the cluster serves, under which group, version and
 * resource name, and how discovery describes them. It maps group/version/kind
 * to resource and back; discovery, the URL router and kubectl's view of the
 * cluster (`kubectl api-resources`) all come from it.
 */

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

export interface GroupVersionKind extends GroupVersion {
  readonly kind: string;
}

export interface GroupVersionResource extends GroupVersion {
  readonly resource: string;
}

/** Upstream's verb names, as discovery lists them. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface SubresourceInfo {
  /** `status`, `scale`, `binding`, … */
  readonly name: string;
  /** The kind the subresource reads and writes (a Scale for `scale`). */
  readonly kind: GroupVersionKind;
  readonly verbs: readonly Verb[];
}

export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The plural, lower-case name in URLs: `pods`. */
  readonly resource: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly Verb[];
  readonly subresources: readonly SubresourceInfo[];
  /** The List kind: `PodList`. */
  readonly listKind: string;
  /**
   * The version objects are stored as, when it is not this one (a kind served
   * in several versions: events.k8s.io/v1 Events are stored as core/v1 Events).
   */
  readonly storageVersion?: GroupVersionKind;
  /** Upstream's deprecation warning, sent (as a `299` Warning header) with every response about the resource. */
  readonly deprecationWarning?: string;
}

export const groupVersionString = (gv: GroupVersion): string => (gv.group === '' ? gv.version : `${gv.group}/${gv.version}`);

/** Parse an apiVersion: `v1` → core, `apps/v1` → apps. */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export class Scheme {
  private readonly byResource = new Map<string, ResourceInfo>();
  private readonly byKind = new Map<string, ResourceInfo>();
  private readonly groupVersions: GroupVersion[] = [];

  constructor(resources: readonly ResourceInfo[]) {
    for (const r of resources) this.add(r);
  }

  private add(r: ResourceInfo): void {
    const rk = resourceKey(r.group, r.version, r.resource);
    const kk = kindKey(r.group, r.version, r.kind);
    if (this.byResource.has(rk)) throw new Error(`resource ${rk} registered twice`);
    this.byResource.set(rk, r);
    if (!this.byKind.has(kk)) this.byKind.set(kk, r);
    if (!this.groupVersions.some((gv) => gv.group === r.group && gv.version === r.version)) {
      this.groupVersions.push({ group: r.group, version: r.version });
    }
  }

  resource(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.byResource.get(resourceKey(group, version, resource));
  }

  kind(group: string, version: string, kind: string): ResourceInfo | undefined {
    return this.byKind.get(kindKey(group, version, kind));
  }

  /** Every resource, in registration order. */
  resources(): ResourceInfo[] {
    return [...this.byResource.values()];
  }

  resourcesOf(gv: GroupVersion): ResourceInfo[] {
    return this.resources().filter((r) => r.group === gv.group && r.version === gv.version);
  }

  /** Group versions in registration order (the core group first). */
  versions(): readonly GroupVersion[] {
    return this.groupVersions;
  }

  /** Group names in registration order, core ('') excluded. */
  groups(): string[] {
    return [...new Set(this.groupVersions.map((gv) => gv.group))].filter((g) => g !== '');
  }
}

const resourceKey = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;
const kindKey = (group: string, version: string, kind: string): string => `${group}/${version}#${kind}`;
