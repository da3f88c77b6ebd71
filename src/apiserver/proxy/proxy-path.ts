/**
 * Which path of the backend a proxy request reaches. Upstream takes the URL's
 * segments after the subresource (`…/pods/web/proxy/a/b/` → `/a/b/`, keeping
 * a trailing slash), cleans it as Go's path.Join does (no `..`, no empty
 * segments) and keeps the request's trailing slash. The `path` option
 * (`…/pods/web/proxy?path=/a/b`, PodProxyOptions.path) is read when the URL
 * has no segments of its own.
 */
import { posix } from 'node:path';
import type { RequestInfo } from '../server/request-info.js';

/** The path option: the URL's segments after `{resource}/{name}/proxy`, else `?path=`. */
export function requestedProxyPath(info: Pick<RequestInfo, 'parts' | 'path'>, query: URLSearchParams): string {
  let path = info.parts.slice(3).join('/');
  if (path === '') path = query.get('path') ?? '';
  if (path !== '' && !path.startsWith('/')) path = `/${path}`;
  if (info.path.endsWith('/') && !path.endsWith('/')) path += '/';
  return path;
}

/**
 * The backend's path (decoded): the option cleaned (`''` stays `''`: the
 * backend's root, which a GET is first redirected to), with the request's
 * trailing slash.
 */
export function backendPath(option: string, requestPath: string): string {
  if (option === '') return requestPath.endsWith('/') ? '/' : '';
  let path = posix.normalize(`/${option}`);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (requestPath.endsWith('/') && !path.endsWith('/')) path += '/';
  return path;
}

/** A decoded path as a request target: each segment escaped, the characters a path may hold kept. */
export function escapePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%(3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi, (m) => decodeURIComponent(m)))
    .join('/');
}
