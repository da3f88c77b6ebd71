/**
 * The Service as the registry sees it, and the small predicates upstream keeps
 * in pkg/api/service and pkg/registry/core/service (headless, externally
 * accessible, needs a node port, needs a health check node port, …).
 */
import type { ServicePort, ServiceSpec, ServiceStatus } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../../../machinery/meta.js';

export type { ServicePort, ServiceSpec, ServiceStatus };

/** A Service as it travels through the store: a plain JSON object. */
export type ServiceObject = KubeObject & { spec?: ServiceSpec; status?: ServiceStatus };

export const CLUSTER_IP_NONE = 'None';
export type IPFamily = 'IPv4' | 'IPv6';

/** The spec, created empty when absent (decoding upstream's struct never yields a nil spec). */
export function specOf(service: ServiceObject): ServiceSpec {
  if (typeof service.spec !== 'object' || service.spec === null) service.spec = {};
  return service.spec;
}

/** `spec.type`, '' when unset. */
export const typeOf = (service: ServiceObject): string => service.spec?.type ?? '';

/** Exactly one clusterIP, and it is `None`. */
export function isHeadless(service: ServiceObject | undefined): boolean {
  const ips = service?.spec?.clusterIPs;
  return ips !== undefined && ips.length === 1 && ips[0] === CLUSTER_IP_NONE;
}

/** NodePort and LoadBalancer services, and ClusterIP services with external IPs (upstream's ExternallyAccessible). */
export function externallyAccessible(service: ServiceObject): boolean {
  const type = typeOf(service);
  return type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && (service.spec?.externalIPs?.length ?? 0) > 0);
}

/** A LoadBalancer service with externalTrafficPolicy Local: it gets a health check node port. */
export function needsHealthCheck(service: ServiceObject): boolean {
  return typeOf(service) === 'LoadBalancer' && service.spec?.externalTrafficPolicy === 'Local';
}

/** Every type but ExternalName has clusterIPs (a value, or `None`). */
export const needsClusterIP = (service: ServiceObject): boolean => typeOf(service) !== 'ExternalName';

/** NodePort and LoadBalancer services have node ports. */
export function needsNodePort(service: ServiceObject): boolean {
  const type = typeOf(service);
  return type === 'NodePort' || type === 'LoadBalancer';
}

/** Whether node ports are allocated for ports that do not ask for one. */
export function shouldAllocateNodePorts(service: ServiceObject): boolean {
  const type = typeOf(service);
  if (type === 'NodePort') return true;
  if (type === 'LoadBalancer') return service.spec?.allocateLoadBalancerNodePorts !== false;
  return false;
}

/** The ports of the spec (an absent list is empty). */
export const portsOf = (service: ServiceObject): ServicePort[] => service.spec?.ports ?? [];

/** The non-zero node ports of a service, in port order. */
export function nodePortsOf(service: ServiceObject): number[] {
  return portsOf(service)
    .map((p) => p.nodePort ?? 0)
    .filter((p) => p !== 0);
}

export function sameStrings(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** The namespace and name an allocation belongs to. */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

export function serviceRef(service: ServiceObject): ServiceRef {
  return { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
}
