/**
 * Whether the server serves an operation of the OpenAPI document: its path's
 * resource (and subresource) is in the Scheme, and the operation's verb is one
 * the Scheme lists for it. Discovery paths (`/api/`, `/apis/apps/`,
 * `/apis/apps/v1/`, `/version/`) are served when their group is.
 */
import type { Scheme } from '../../api/scheme.js';
import { verbOfAction, type ApiPathInfo } from './api-path.js';

/**
 * Whether `info`'s path, with the operation whose `x-kubernetes-action` is
 * `action`, is served by `scheme`.
 */
export function isServedOperation(scheme: Scheme, info: ApiPathInfo, action: string | undefined): boolean {
  const { group, version, resource, subresource } = info;
  if (group === undefined) return true;
  if (version === undefined) return scheme.groups().includes(group);
  if (resource === undefined) return scheme.versions().some((gv) => gv.group === group && gv.version === version);
  const r = scheme.resource(group, version, resource);
  if (r === undefined) return false;
  const verbs = subresource === undefined ? r.verbs : r.subresources.find((s) => s.name === subresource)?.verbs;
  const verb = verbOfAction(action);
  return verbs !== undefined && verb !== undefined && (verbs as readonly string[]).includes(verb);
}
