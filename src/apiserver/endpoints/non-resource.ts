/**
 * Everything that is not a resource: /version, the health endpoints,
 * discovery (/api, /apis, /api/v1, /apis/<group>[/<version>]) and OpenAPI.
 */
import type { Scheme } from '../../api/scheme.js';
import { notAcceptable, resourceNotFound } from '../../machinery/status.js';
import { newAPIGroupDiscoveryList } from '../discovery/aggregated.js';
import { newAPIGroup, newAPIGroupList, newAPIResourceList, newAPIVersions } from '../discovery/legacy.js';
import { negotiateDiscovery } from '../discovery/negotiate-discovery.js';
import type { Handler, RequestContext } from '../server/context.js';
import { writeObject } from '../server/response.js';
import { handleHealth, type HealthCheck } from './health.js';

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
}

/** The API version k8ts serves, as /version reports it. */
export const SERVED_VERSION = { major: '1', minor: '33', gitVersion: 'v1.33.0-k8ts.0' };

export function versionInfo(): VersionInfo {
  return {
    major: SERVED_VERSION.major,
    minor: SERVED_VERSION.minor,
    emulationMajor: SERVED_VERSION.major,
    emulationMinor: SERVED_VERSION.minor,
    minCompatibilityMajor: SERVED_VERSION.major,
    minCompatibilityMinor: String(Number(SERVED_VERSION.minor) - 1),
    gitVersion: SERVED_VERSION.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-30T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

export interface NonResourceOptions {
  readonly scheme: Scheme;
  /** host:port clients reach the server at (for /api's serverAddressByClientCIDRs). */
  readonly serverAddress: () => string;
  readonly livez: readonly HealthCheck[];
  readonly readyz: readonly HealthCheck[];
  /** Extra routes (OpenAPI, metrics), by exact path or prefix ending in '/'. */
  readonly routes?: ReadonlyMap<string, Handler>;
}

export function newNonResourceHandler(options: NonResourceOptions): Handler {
  const { scheme } = options;
  return async (ctx) => {
    const path = ctx.path.length > 1 ? ctx.path.replace(/\/+$/, '') : ctx.path;
    if (path === '/version') return writeObject(ctx, 200, versionInfo());
    for (const endpoint of ['healthz', 'livez', 'readyz'] as const) {
      if (path === `/${endpoint}` || path.startsWith(`/${endpoint}/`)) {
        return handleHealth(ctx, endpoint, endpoint === 'readyz' ? options.readyz : options.livez);
      }
    }
    if (path === '/api' || path === '/apis') return discoveryRoot(ctx, scheme, path === '/api' ? 'api' : 'apis', options.serverAddress());
    const segments = path.split('/').filter((s) => s !== '');
    if (segments[0] === 'api' && segments.length === 2) {
      return writeFound(ctx, newAPIResourceList(scheme, { group: '', version: segments[1]! }));
    }
    if (segments[0] === 'apis' && segments.length === 2) return writeFound(ctx, newAPIGroup(scheme, segments[1]!));
    if (segments[0] === 'apis' && segments.length === 3) {
      return writeFound(ctx, newAPIResourceList(scheme, { group: segments[1]!, version: segments[2]! }));
    }
    const exact = options.routes?.get(path);
    if (exact !== undefined) return exact(ctx);
    for (const [prefix, handler] of options.routes ?? []) {
      if (prefix.endsWith('/') && path.startsWith(prefix)) return handler(ctx);
    }
    throw resourceNotFound();
  };
}

function writeFound(ctx: RequestContext, body: unknown): void {
  if (body === undefined) throw resourceNotFound();
  writeObject(ctx, 200, body);
}

function discoveryRoot(ctx: RequestContext, scheme: Scheme, root: 'api' | 'apis', serverAddress: string): void {
  const negotiated = negotiateDiscovery(ctx.req.headers.accept);
  if (negotiated.format === 'not-acceptable') throw notAcceptable(['application/json']);
  if (negotiated.format === 'aggregated') {
    ctx.res.setHeader('vary', 'Accept');
    return writeObject(ctx, 200, newAPIGroupDiscoveryList(scheme, root, negotiated.version), { encoding: 'json', contentType: negotiated.contentType });
  }
  ctx.res.setHeader('vary', 'Accept');
  writeObject(ctx, 200, root === 'api' ? newAPIVersions(serverAddress) : newAPIGroupList(scheme));
}
