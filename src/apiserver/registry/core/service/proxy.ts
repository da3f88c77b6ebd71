/**
 * services/proxy (upstream's service ResourceLocation): `NAME`, `NAME:PORT`
 * or `SCHEME:NAME:PORT` reaches a ready endpoint of the Service, read from
 * its EndpointSlices, on the endpoint port whose name is the service port's
 * (a port number is first turned into its service port's name; no name: the
 * Service's unnamed port). Upstream's messages: "no service port 81 found
 * for service \"web\"", "no endpoints available for service \"web\"".
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { internalError, serviceUnavailable } from '../../../../machinery/status.js';
import type { Target, VerbHandler } from '../../../endpoints/target.js';
import type { ProxyBackend } from '../../../proxy/backend-proxy.js';
import type { ProxyId } from '../../../proxy/proxy-id.js';
import { quote } from '../../../proxy/proxy-id.js';
import { newProxyHandlers } from '../../../proxy/proxy-handlers.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/**
 * Where a proxy request for `id` goes among the Service's slices; `pick`
 * chooses one of the candidate addresses (upstream: at random).
 */
export function serviceBackend(service: Service, slices: readonly EndpointSlice[], id: ProxyId, pick: (n: number) => number = (n) => Math.floor(Math.random() * n)): ProxyBackend {
  const name = service.metadata?.name ?? id.name;
  let portName = id.port;
  if (/^\d+$/.test(portName)) {
    const number = Number(portName);
    const servicePort = (service.spec?.ports ?? []).find((p) => p.port === number);
    if (servicePort === undefined) throw serviceUnavailable(`no service port ${number} found for service ${quote(name)}`);
    portName = servicePort.name ?? '';
  }
  const ready = slices.filter((s) => s.endpoints.some((e) => e.conditions?.ready !== false && e.addresses.length > 0));
  if (ready.length === 0) throw serviceUnavailable(`no endpoints available for service ${quote(name)}`);
  const candidates: { host: string; port: number }[] = [];
  for (const slice of ready) {
    const port = (slice.ports ?? []).find((p) => (p.name ?? '') === portName)?.port;
    if (port === undefined) continue;
    for (const e of slice.endpoints) if (e.conditions?.ready !== false && e.addresses[0] !== undefined) candidates.push({ host: e.addresses[0], port });
  }
  // Upstream names the whole request here (`web:http`).
  if (candidates.length === 0) throw serviceUnavailable(`no endpoints available for service ${quote(id.id)}`);
  const chosen = candidates[pick(candidates.length)]!;
  return { scheme: id.scheme === '' ? 'http' : id.scheme, ...chosen };
}

async function resolve(t: Target, id: ProxyId): Promise<ProxyBackend> {
  const service = (await t.store.get(t.namespace, id.name)) as unknown as Service;
  const slicesStore = t.lookup?.('discovery.k8s.io', 'v1', 'endpointslices');
  if (slicesStore === undefined) throw internalError(new Error('endpointslices are not served'));
  const list = await slicesStore.list(t.namespace, { predicate: (o) => o.metadata.labels?.[SERVICE_NAME_LABEL] === id.name });
  return serviceBackend(service, list.items as unknown as EndpointSlice[], id);
}

export const serviceProxyHandlers: Record<string, VerbHandler> = newProxyHandlers('service', resolve);
