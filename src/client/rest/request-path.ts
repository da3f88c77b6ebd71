/**
 * URLs of the API: `/api/v1` for the core group, `/apis/GROUP/VERSION`
 * otherwise, then `namespaces/NS/` for a namespaced resource given a
 * namespace, the resource, a name and a subresource.
 */
import type { ResourceRef } from './interface.js';

export interface PathParts {
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
}

export function resourcePath(ref: ResourceRef, parts: PathParts = {}): string {
  const segments = [ref.group === '' ? 'api' : `apis/${enc(ref.group)}`, enc(ref.version)];
  if (ref.namespaced && parts.namespace !== undefined && parts.namespace !== '') segments.push('namespaces', enc(parts.namespace));
  segments.push(enc(ref.resource));
  if (parts.name !== undefined) segments.push(enc(parts.name));
  if (parts.subresource !== undefined) segments.push(enc(parts.subresource));
  return `/${segments.join('/')}`;
}

const enc = (s: string): string => encodeURIComponent(s);

export type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` of the defined, non-empty parameters ('' when none), in the order given. */
export function queryString(params: Readonly<Record<string, QueryValue>>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    q.append(key, String(value));
  }
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}
