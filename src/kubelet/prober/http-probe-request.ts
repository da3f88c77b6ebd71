/**
 * The request an httpGet probe sends, built as upstream's
 * NewRequestForHTTPGetAction: scheme lower-cased (default http), host
 * defaulting to the pod IP, the port resolved by number or name, the path
 * as written (a query string included), headers in Go's canonical form with
 * User-Agent `kube-probe/1.33` and Accept `*\/*` unless the probe sets them
 * (an empty Accept removes it), and a `Host` header taken as the request's
 * host.
 */
import type { HTTPGetAction } from 'kubernetes-types/core/v1.js';
import type { ContainerSpec } from '../types.js';
import { resolveContainerPort } from './container-port.js';
import { joinHostPort } from './go-format.js';

/** Upstream's `kube-probe/<major>.<minor>` for the Kubernetes version k8ts serves. */
export const PROBE_USER_AGENT = 'kube-probe/1.33';

export interface HttpProbeRequest {
  /** `http://10.0.0.5:8080/healthz?x=1`, as Go's url.URL.String() writes it. */
  readonly url: string;
  /** Canonical header name → values, in the order first seen (a header may repeat). */
  readonly headers: ReadonlyMap<string, readonly string[]>;
}

/** Go's textproto.CanonicalMIMEHeaderKey: `x-custom-header` → `X-Custom-Header` (names with other characters stay as written). */
export function canonicalHeaderKey(name: string): string {
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return name;
  return name
    .split('-')
    .map((part) => (part === '' ? '' : part[0]!.toUpperCase() + part.slice(1).toLowerCase()))
    .join('-');
}

function formatUrl(scheme: string, host: string, port: number, path: string): string {
  const hostPort = joinHostPort(host, port);
  if (path === '') return `${scheme}://${hostPort}`;
  return `${scheme}://${hostPort}${path.startsWith('/') ? '' : '/'}${path}`;
}

export function newHttpProbeRequest(action: HTTPGetAction, container: ContainerSpec, podIP: string): HttpProbeRequest {
  const scheme = (action.scheme ?? '').toLowerCase() || 'http';
  const host = action.host !== undefined && action.host !== '' ? action.host : podIP;
  const port = resolveContainerPort(action.port, container);
  const headers = new Map<string, string[]>();
  for (const h of action.httpHeaders ?? []) {
    const key = canonicalHeaderKey(h.name);
    const values = headers.get(key);
    if (values === undefined) headers.set(key, [h.value]);
    else values.push(h.value);
  }
  if (!headers.has('User-Agent')) headers.set('User-Agent', [PROBE_USER_AGENT]);
  const accept = headers.get('Accept');
  if (accept === undefined) headers.set('Accept', ['*/*']);
  else if ((accept[0] ?? '') === '') headers.delete('Accept');
  return { url: formatUrl(scheme, host, port, action.path ?? ''), headers };
}
