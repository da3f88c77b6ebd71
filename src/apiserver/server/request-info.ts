/**
 * What a request asks for, read from its method, path and query the way
 * upstream's RequestInfoFactory reads them:
 *
 *   /api/v1/namespaces/default/pods/web/status   → update pods/status "web" in "default"
 *   /apis/apps/v1/deployments?watch=true         → watch deployments in all namespaces
 *   /healthz                                     → a non-resource request
 *
 * Authorization, priority and fairness, audit and the handlers all read it.
 */

import { parseFieldSelector } from '../../machinery/selectors/field-selector.js';
import { isValidPathSegmentName } from '../../machinery/validation/names.js';

export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'proxy' | string;

export interface RequestInfo {
  readonly isResourceRequest: boolean;
  readonly path: string;
  /** The API verb (get, list, watch, create, …) for resource requests; the lower-case HTTP method otherwise. */
  readonly verb: RequestVerb;
  /** `api` or `apis` for resource requests. */
  readonly apiPrefix: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /**
   * True when `name` is not in the path but comes from a list or watch's
   * `fieldSelector=metadata.name=x`, as upstream's RequestInfo takes it (so
   * that RBAC's resourceNames and audit see it); routing ignores such a name.
   */
  readonly nameFromFieldSelector?: true;
  /** The path segments after the version. */
  readonly parts: readonly string[];
}

/** Subresources of a namespace, which keep `/namespaces/{name}/…` meaning the namespace itself. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource = (): RequestInfo => ({
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  });
  // As Go's URL.Path: each segment percent-decoded (clients may send `system%3Anode` for `system:node`).
  // The non-empty segments of path.split('/'), cut by hand: the path is usually the HTTP/2 header's
  // own text, an external string, which split copies at about three times the cost.
  const segments: string[] = [];
  for (let from = 0; from < path.length; ) {
    let end = path.indexOf('/', from);
    if (end < 0) end = path.length;
    if (end > from) {
      const s = path.slice(from, end);
      segments.push(s.includes('%') ? decodeSegment(s) : s);
    }
    from = end + 1;
  }
  let rest: string[];
  let apiPrefix: string;
  let apiGroup = '';
  let apiVersion: string;
  if (segments[0] === 'api' && segments.length >= 2) {
    apiPrefix = 'api';
    apiVersion = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    apiPrefix = 'apis';
    apiGroup = segments[1]!;
    apiVersion = segments[2]!;
    rest = segments.slice(3);
  } else {
    return nonResource();
  }
  if (rest.length === 0) return { ...nonResource(), apiPrefix, apiGroup, apiVersion };

  let verb: RequestVerb = '';
  // The deprecated /watch/ prefix: /api/v1/watch/namespaces/default/pods
  if (rest[0] === 'watch') {
    verb = 'watch';
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1]!;
      if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
    }
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';

  if (verb === '') {
    switch (method.toUpperCase()) {
      case 'POST':
        verb = 'create';
        break;
      case 'GET':
      case 'HEAD':
        verb = name !== '' ? 'get' : isWatch(query) ? 'watch' : 'list';
        break;
      case 'PUT':
        verb = 'update';
        break;
      case 'PATCH':
        verb = 'patch';
        break;
      case 'DELETE':
        verb = name !== '' ? 'delete' : 'deletecollection';
        break;
      default:
        verb = method.toLowerCase();
    }
  }
  if (name === '' && (verb === 'list' || verb === 'watch')) {
    const selected = nameFromFieldSelector(query);
    if (selected !== undefined) {
      return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name: selected, nameFromFieldSelector: true, parts: rest };
    }
  }
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts: rest };
}

/** The name a field selector requires exactly (`metadata.name=x`), when it is a valid path segment. */
function nameFromFieldSelector(query: URLSearchParams): string | undefined {
  const text = query.get('fieldSelector');
  if (text === null || !text.includes('metadata.name')) return undefined;
  try {
    const name = parseFieldSelector(text).requiredValue('metadata.name');
    return name !== undefined && name !== '' && isValidPathSegmentName(name).length === 0 ? name : undefined;
  } catch {
    return undefined; // the list handler answers a selector that does not parse
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `watch` as upstream decodes bool parameters: present and neither "0" nor "false" (any case). */
function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}
