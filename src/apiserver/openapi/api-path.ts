/**
 * What an API path of the OpenAPI document names: which /openapi/v3 document
 * it belongs to, and which resource and subresource it serves. Upstream groups
 * paths into documents by their prefix: `/api/` → `api`, `/apis/` → `apis`,
 * `/apis/apps/` → `apis/apps`, `/version/` → `version`, `/api/v1/…` →
 * `api/v1`, `/apis/apps/v1/…` → `apis/apps/v1`.
 */

/** A path's document and, for a resource path, its resource. */
export interface ApiPathInfo {
  /** The /openapi/v3 document name: `api/v1`, `apis/apps/v1`, `apis/apps`, `api`, `apis`, `version`. */
  document: string;
  /** Set for paths of a group-version (`api/v1`, `apis/apps/v1`) and of a group (`apis/apps`). */
  group?: string;
  version?: string;
  /** The plural resource: unset for the group-version's own discovery path (`/api/v1/`). */
  resource?: string;
  subresource?: string;
}

/**
 * Classify an OpenAPI path, or return undefined for one outside the API
 * (`/logs/`, `/.well-known/…`, …).
 *
 * @example classifyApiPath('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale')
 * // { document: 'apis/apps/v1', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale' }
 */
export function classifyApiPath(path: string): ApiPathInfo | undefined {
  if (path === '/api/') return { document: 'api' };
  if (path === '/apis/') return { document: 'apis' };
  if (path === '/version/') return { document: 'version' };
  const segments = path.split('/').slice(1);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments[1] !== undefined && segments[1] !== '') {
    group = '';
    version = segments[1];
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments[1] !== undefined && segments[1] !== '') {
    group = segments[1];
    if (segments.length === 3 && segments[2] === '') return { document: `apis/${group}`, group };
    if (segments[2] === undefined || segments[2] === '') return undefined;
    version = segments[2];
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  const document = group === '' ? `api/${version}` : `apis/${group}/${version}`;
  if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) return { document, group, version };
  if (rest[0] === 'watch') rest = rest.slice(1);
  if (rest[0] === 'namespaces' && rest[1] === '{namespace}' && rest.length > 2) rest = rest.slice(2);
  const [resource, , subresource] = rest;
  if (resource === undefined || resource === '') return undefined;
  return { document, group, version, resource, ...(subresource !== undefined && subresource !== '' ? { subresource } : {}) };
}

/** The Kubernetes verb of an operation, from its `x-kubernetes-action` (undefined for `connect`). */
export function verbOfAction(action: string | undefined): string | undefined {
  switch (action) {
    case 'get':
    case 'list':
    case 'watch':
    case 'patch':
    case 'delete':
    case 'deletecollection':
      return action;
    case 'watchlist':
      return 'watch';
    case 'post':
      return 'create';
    case 'put':
      return 'update';
    default:
      return undefined;
  }
}
