/**
 * Whether the server serves an operation of the OpenAPI document: its path's
 * resource (and subresource) is in the Scheme, and the operation's verb is one
 * the Scheme lists for it. Discovery paths (`/api/`, `/apis/apps/`,
 * `/apis/apps/v1/`, `/version/`) are served when their group is.
 */
import type { Scheme } from '../../api/scheme.js';
import { classifyApiPath, verbOfAction, type ApiPathInfo } from './api-path.js';
import type { Json, JsonObject } from './openapi-data.js';

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

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An OpenAPI path item (v2 or v3: both keep operations under the method names)
 * reduced to the operations the Scheme serves, with the document it belongs
 * to; undefined if none is served.
 */
export function servedPathItem(scheme: Scheme, path: string, item: JsonObject): { document: string; item: JsonObject } | undefined {
  const info = classifyApiPath(path);
  if (info === undefined) return undefined;
  const out: JsonObject = {};
  for (const method of METHODS) {
    const op = item[method];
    if (!isObject(op)) continue;
    const action = op['x-kubernetes-action'];
    if (isServedOperation(scheme, info, typeof action === 'string' ? action : undefined)) out[method] = op;
  }
  if (Object.keys(out).length === 0) return undefined;
  const parameters = item['parameters'];
  if (parameters !== undefined) out['parameters'] = parameters;
  return { document: info.document, item: out };
}

