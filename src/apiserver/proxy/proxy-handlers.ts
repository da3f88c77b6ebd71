/**
 * The verb handlers of a proxy subresource: every method upstream's
 * ProxyREST connects (GET, HEAD → get; POST → create; PUT → update; PATCH →
 * patch; DELETE → delete; OPTIONS) reads the name (`[scheme:]name[:port]`),
 * lets the resource find its backend, and proxies the request to the path
 * the URL names. Authorization has already been decided on the verb.
 */
import { badRequest } from '../../machinery/status.js';
import type { Target, VerbHandler } from '../endpoints/target.js';
import type { RequestContext } from '../server/context.js';
import { proxyToBackend, type ProxyBackend } from './backend-proxy.js';
import { quote, splitSchemeNamePort, type ProxyId } from './proxy-id.js';
import { backendPath, requestedProxyPath } from './proxy-path.js';

/** Where a resource's proxy goes: its backend for the parsed name (throws a Status when there is none). */
export type BackendResolver = (target: Target, id: ProxyId) => Promise<ProxyBackend>;

/** The request verbs (request-info.ts) of the methods a proxy subresource serves. */
const PROXY_VERBS = ['get', 'create', 'update', 'patch', 'delete', 'options'] as const;

/** `kind` names the resource in upstream's message for a bad name ("invalid pod request …"). */
export function newProxyHandlers(kind: 'pod' | 'service' | 'node', resolve: BackendResolver): Record<string, VerbHandler> {
  const handler: VerbHandler = async (ctx: RequestContext, t: Target) => {
    const id = splitSchemeNamePort(t.name);
    if (id === undefined) throw badRequest(`invalid ${kind} request ${quote(t.name)}`);
    const backend = await resolve(t, id);
    await proxyToBackend(ctx, backend, backendPath(requestedProxyPath(ctx.info, ctx.query), ctx.path));
  };
  return Object.fromEntries(PROXY_VERBS.map((verb) => [verb, handler]));
}
