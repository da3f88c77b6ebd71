/**
 * The legacy (unaggregated) discovery documents, as pure functions of a
 * Scheme: GET /api (APIVersions), /apis (APIGroupList), /apis/<group>
 * (APIGroup), /api/v1 and /apis/<group>/<version> (APIResourceList). Field
 * order and the presence of `kind`/`apiVersion` follow upstream's bytes:
 * /api and /api/v1 carry no `apiVersion`, the /apis documents do.
 */
import { groupVersionString, type GroupVersion, type Scheme } from '../../api/scheme.js';
import { apiResourcesOf, type APIResource } from './api-resource.js';
import { sortGroups, sortVersions } from './group-priority.js';

export type { APIResource } from './api-resource.js';

/** One address clients in `clientCIDR` should use to reach the server. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** GET /api. */
export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

/** A version of a group, as `/apis` lists it. */
export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** GET /apis/<group> (with kind/apiVersion), and each entry of /apis (without). */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

/** GET /apis. */
export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

/** GET /api/v1 (no apiVersion) and /apis/<group>/<version> (apiVersion v1). */
export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/**
 * The body of GET /api.
 *
 * @param serverAddress the `host:port` clients reach the server at
 */
export function newAPIVersions(serverAddress: string): APIVersions {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(scheme: Scheme, group: string): APIGroup | undefined {
  const versions = sortVersions(scheme.versions().filter((gv) => gv.group === group).map((gv) => gv.version)).map(
    (version): GroupVersionForDiscovery => ({ groupVersion: groupVersionString({ group, version }), version }),
  );
  const preferred = versions[0];
  return preferred === undefined ? undefined : { name: group, versions, preferredVersion: preferred };
}

/** The body of GET /apis: every named group, in upstream's priority order. */
export function newAPIGroupList(scheme: Scheme): APIGroupList {
  const groups = sortGroups(scheme.groups()).flatMap((g) => groupEntry(scheme, g) ?? []);
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** The body of GET /apis/<group>, or undefined when the group is not served. */
export function newAPIGroup(scheme: Scheme, group: string): APIGroup | undefined {
  if (group === '') return undefined;
  const entry = groupEntry(scheme, group);
  return entry === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...entry };
}

/**
 * The body of GET /api/v1 or /apis/<group>/<version>, or undefined when the
 * group-version is not served.
 */
export function newAPIResourceList(scheme: Scheme, gv: GroupVersion): APIResourceList | undefined {
  if (!scheme.versions().some((v) => v.group === gv.group && v.version === gv.version)) return undefined;
  const groupVersion = groupVersionString(gv);
  const resources = apiResourcesOf(scheme, gv);
  return gv.group === ''
    ? { kind: 'APIResourceList', groupVersion, resources }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}
