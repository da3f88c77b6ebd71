/**
 * Folds a Service and its EndpointSlices into the {@link ServiceEntry} the
 * record builder takes. Pure.
 *
 * - type ExternalName → a CNAME to spec.externalName.
 * - clusterIP "None" → headless: the addresses of the slices' ready
 *   endpoints (conditions.ready absent counts as ready, as upstream; every
 *   endpoint when spec.publishNotReadyAddresses), IPv4 and IPv6 slices
 *   (FQDN slices carry no address to serve).
 * - otherwise the clusterIPs (none yet allocated: no address records).
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KubeObject } from '../machinery/meta.js';
import type { EndpointEntry, PortEntry, PortProtocol, ServiceEntry } from './records.js';

export type ServiceObject = Service & KubeObject;
export type EndpointSliceObject = EndpointSlice & KubeObject;

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

const protocolOf = (protocol: string | undefined): PortProtocol => (protocol === 'UDP' || protocol === 'SCTP' ? protocol : 'TCP');

function servicePorts(service: ServiceObject): PortEntry[] {
  return (service.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', protocol: protocolOf(p.protocol), port: p.port }));
}

function slicePorts(slice: EndpointSliceObject): PortEntry[] {
  const out: PortEntry[] = [];
  for (const p of slice.ports ?? []) {
    if (p.port === undefined) continue;
    out.push({ name: p.name ?? '', protocol: protocolOf(p.protocol), port: p.port });
  }
  return out;
}

export function isHeadlessService(service: ServiceObject): boolean {
  return service.spec?.clusterIP === 'None';
}

/** The ready addresses of a headless Service's slices, each once. */
export function headlessEndpoints(service: ServiceObject, slices: readonly EndpointSliceObject[]): EndpointEntry[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const out: EndpointEntry[] = [];
  const seen = new Set<string>();
  const ordered = [...slices].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  for (const slice of ordered) {
    if (slice.addressType !== 'IPv4' && slice.addressType !== 'IPv6') continue;
    const ports = slicePorts(slice);
    for (const endpoint of slice.endpoints ?? []) {
      if (!publishNotReady && endpoint.conditions?.ready === false) continue;
      for (const ip of endpoint.addresses) {
        const key = `${ip}|${endpoint.hostname ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ ip, ports, ...(endpoint.hostname !== undefined && endpoint.hostname !== '' ? { hostname: endpoint.hostname } : {}) });
      }
    }
  }
  return out;
}

export function serviceEntry(service: ServiceObject, slices: readonly EndpointSliceObject[]): ServiceEntry {
  const namespace = service.metadata.namespace ?? '';
  const name = service.metadata.name ?? '';
  if (service.spec?.type === 'ExternalName') {
    return { kind: 'ExternalName', namespace, name, externalName: service.spec.externalName ?? '', ports: servicePorts(service) };
  }
  if (isHeadlessService(service)) return { kind: 'Headless', namespace, name, endpoints: headlessEndpoints(service, slices) };
  const clusterIPs = service.spec?.clusterIPs ?? (service.spec?.clusterIP !== undefined && service.spec.clusterIP !== '' ? [service.spec.clusterIP] : []);
  return { kind: 'ClusterIP', namespace, name, clusterIPs: clusterIPs.filter((ip) => ip !== 'None' && ip !== ''), ports: servicePorts(service) };
}
