/**
 * Folds Services and EndpointSlices into the proxy's {@link ProxyState}, as
 * upstream's proxy change trackers do (pkg/proxy/servicechangetracker.go,
 * endpointslicecache.go):
 *
 * - one ServicePort per port of every Service that has a cluster IP; headless
 *   (clusterIP None), ExternalName and not yet allocated Services have none;
 * - the endpoints of a port come from the slices labelled
 *   kubernetes.io/service-name=<service>, matched by port name and protocol;
 *   only an endpoint's first address counts (as upstream), FQDN slices are
 *   ignored, and an address listed by several slices keeps its most ready
 *   entry (ready over serving over neither);
 * - absent conditions read as upstream's: ready true, serving = ready,
 *   terminating false.
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KubeObject } from '../machinery/meta.js';
import { servicePortKey, type Endpoint, type Protocol, type ProxyState, type ServicePort } from './interface.js';

export type ServiceObject = Service & KubeObject;
export type EndpointSliceObject = EndpointSlice & KubeObject;

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** A Service with this label is served by another proxy (upstream's service.kubernetes.io/service-proxy-name): we leave it alone. */
export const SERVICE_PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
/** Upstream's default spec.sessionAffinityConfig.clientIP.timeoutSeconds. */
export const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10_800;

const asProtocol = (p: string | undefined): Protocol => (p === 'UDP' || p === 'SCTP' ? p : 'TCP');

/** Whether the proxy programs the Service at all (it has a usable cluster IP). */
export function hasClusterIP(service: ServiceObject): boolean {
  const spec = service.spec;
  if (spec === undefined || spec.type === 'ExternalName') return false;
  const ip = spec.clusterIP;
  return ip !== undefined && ip !== '' && ip !== 'None';
}

/** The ServicePorts of one Service ([] for headless, ExternalName and unallocated ones). */
export function servicePortsOf(service: ServiceObject): ServicePort[] {
  if (!hasClusterIP(service)) return [];
  const spec = service.spec!;
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name ?? '';
  const clusterIPs = spec.clusterIPs !== undefined && spec.clusterIPs.length > 0 ? [...spec.clusterIPs] : [spec.clusterIP!];
  const type = spec.type === 'NodePort' || spec.type === 'LoadBalancer' ? spec.type : 'ClusterIP';
  const affinity = spec.sessionAffinity === 'ClientIP' ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_CLIENT_IP_AFFINITY_SECONDS) : undefined;
  const loadBalancerIPs = (service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip).filter((ip): ip is string => ip !== undefined && ip !== '');
  return (spec.ports ?? []).map((p): ServicePort => {
    const portName = { namespace, name, port: p.name ?? '', protocol: asProtocol(p.protocol) };
    return {
      key: servicePortKey(portName),
      name: portName,
      type,
      clusterIPs,
      port: p.port,
      ...(type !== 'ClusterIP' && p.nodePort !== undefined && p.nodePort !== 0 ? { nodePort: p.nodePort } : {}),
      externalIPs: [...(spec.externalIPs ?? [])],
      loadBalancerIPs,
      ...(affinity !== undefined ? { sessionAffinityTimeoutSeconds: affinity } : {}),
      internalTrafficPolicyLocal: spec.internalTrafficPolicy === 'Local',
      externalTrafficPolicyLocal: spec.externalTrafficPolicy === 'Local',
      ...(spec.healthCheckNodePort !== undefined && spec.healthCheckNodePort !== 0 ? { healthCheckNodePort: spec.healthCheckNodePort } : {}),
    };
  });
}

/** `namespace/service` of the Service a slice belongs to, from its label (undefined: not a Service's slice). */
export function sliceServiceKey(slice: EndpointSliceObject): string | undefined {
  const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  return service === undefined || service === '' ? undefined : `${slice.metadata.namespace ?? 'default'}/${service}`;
}

const readiness = (e: Endpoint): number => (e.ready ? 2 : e.serving ? 1 : 0);

/** The endpoints of one Service port from its Service's slices, sorted by address for a stable order. */
export function endpointsOf(port: ServicePort, slices: readonly EndpointSliceObject[], nodeName: string): Endpoint[] {
  const byAddress = new Map<string, Endpoint>();
  for (const slice of slices) {
    if (slice.addressType === 'FQDN') continue;
    const slicePort = (slice.ports ?? []).find((p) => (p.name ?? '') === port.name.port && asProtocol(p.protocol ?? undefined) === port.name.protocol);
    if (slicePort?.port === undefined || slicePort.port === null) continue;
    for (const e of slice.endpoints ?? []) {
      const ip = e.addresses[0];
      if (ip === undefined) continue;
      const ready = e.conditions?.ready ?? true;
      const endpoint: Endpoint = {
        ip,
        port: slicePort.port,
        ready,
        serving: e.conditions?.serving ?? ready,
        terminating: e.conditions?.terminating ?? false,
        ...(e.nodeName !== undefined ? { nodeName: e.nodeName } : {}),
        ...(e.zone !== undefined ? { zone: e.zone } : {}),
        isLocal: e.nodeName !== undefined && e.nodeName === nodeName,
      };
      const key = `${ip}:${slicePort.port}`;
      const seen = byAddress.get(key);
      if (seen === undefined || readiness(endpoint) > readiness(seen)) byAddress.set(key, endpoint);
    }
  }
  return [...byAddress.values()].sort((a, b) => (a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1));
}

export interface BuildProxyStateInput {
  readonly services: readonly ServiceObject[];
  readonly slices: readonly EndpointSliceObject[];
  /** The proxy's node name (--hostname-override): endpoints on it are local. */
  readonly nodeName: string;
}

/** The whole state: every Service port with its endpoints, and the revision of every slice read. */
export function buildProxyState(input: BuildProxyStateInput): ProxyState {
  const slicesByService = new Map<string, EndpointSliceObject[]>();
  const sliceVersions = new Map<string, string>();
  for (const slice of input.slices) {
    const key = sliceServiceKey(slice);
    if (key === undefined) continue;
    let list = slicesByService.get(key);
    if (list === undefined) slicesByService.set(key, (list = []));
    list.push(slice);
    sliceVersions.set(`${slice.metadata.namespace ?? 'default'}/${slice.metadata.name ?? ''}`, slice.metadata.resourceVersion ?? '');
  }
  const services = new Map<string, ServicePort>();
  const endpoints = new Map<string, readonly Endpoint[]>();
  for (const service of input.services) {
    if (service.metadata.labels?.[SERVICE_PROXY_NAME_LABEL] !== undefined) continue;
    const slices = slicesByService.get(`${service.metadata.namespace ?? 'default'}/${service.metadata.name ?? ''}`) ?? [];
    for (const port of servicePortsOf(service)) {
      services.set(port.key, port);
      endpoints.set(port.key, endpointsOf(port, slices, input.nodeName));
    }
  }
  return { services, endpoints, sliceVersions };
}
