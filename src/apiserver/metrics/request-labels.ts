/**
 * The label values of request metrics, computed as upstream computes them
 * (k8s.io/apiserver pkg/endpoints/metrics: CleanScope, CanonicalVerb,
 * CleanVerb, cleanDryRun) and pkg/server/filters (long-running and mutating
 * requests):
 *
 *   GET  /api/v1/namespaces                    → verb LIST,   scope cluster
 *   GET  /api/v1/namespaces/default/pods?watch → verb WATCH,  scope namespace
 *   GET  /api/v1/namespaces/default/pods/web   → verb GET,    scope resource
 *   POST /api/v1/namespaces/default/pods       → verb POST,   scope resource
 *   PATCH with application/apply-patch+yaml    → verb APPLY
 *   GET  …/pods/web/log (exec, attach, …)      → verb CONNECT
 *   GET  /healthz                              → verb GET,    scope ''
 */
import type { RequestInfo } from '../server/request-info.js';

/** The `component` label of everything the API server records. */
export const APISERVER_COMPONENT = 'apiserver';

export type Scope = 'resource' | 'namespace' | 'cluster' | '';

/** Upstream's CleanScope: a named object (or a create), a namespace, the whole cluster, or '' for non-resource requests. */
export function cleanScope(info: RequestInfo): Scope {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** Verbs upstream reports; any other becomes `other` (validRequestMethods). */
const REPORTED_VERBS = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);

/** Subresources reported as CONNECT (validConnectRequests). */
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

/** Subresources that make a request long-running (BasicLongRunningRequestCheck). */
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** types.ApplyPatchType and its CBOR sibling. */
const APPLY_PATCH_PREFIX = 'application/apply-patch';

/**
 * The `verb` label: the HTTP method, with GET/HEAD split into GET and LIST by
 * scope, WATCH for watches (the `watch` parameter or the /watch/ path), APPLY
 * for server-side apply and CONNECT for log/exec/attach/port-forward/proxy.
 */
export function reportedVerb(method: string, info: RequestInfo, scope: Scope, contentType: string | undefined): string {
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
      if (info.verb === 'watch') verb = 'WATCH';
      break;
    case 'PATCH':
      verb = contentType !== undefined && contentType.startsWith(APPLY_PATCH_PREFIX) ? 'APPLY' : 'PATCH';
      break;
    default:
      verb = method.toUpperCase();
  }
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return REPORTED_VERBS.has(verb) ? verb : 'other';
}

/** The `dry_run` label: '' without dryRun, `All` when every value is All, `invalid` otherwise. */
export function cleanDryRun(query: URLSearchParams): string {
  if (!query.has('dryRun')) return '';
  const values = query.getAll('dryRun');
  // Upstream sorts and dedups the values; All is the only valid one.
  return values.every((v) => v === 'All') ? 'All' : 'invalid';
}

/** Watches, proxies and the streaming subresources: not counted as in flight, tracked by apiserver_longrunning_requests. */
export function isLongRunning(info: RequestInfo): boolean {
  return info.verb === 'watch' || info.verb === 'proxy' || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/** Upstream's max-in-flight split: get, list and watch are read-only, every other verb mutates. */
export function isMutating(info: RequestInfo): boolean {
  const verb = info.verb;
  return verb !== 'get' && verb !== 'list' && verb !== 'watch';
}
