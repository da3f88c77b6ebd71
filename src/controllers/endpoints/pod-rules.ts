/**
 * Which pods back a Service and at which address and port: the rules the
 * endpoints and EndpointSlice controllers share (upstream's
 * endpointslice util ShouldPodBeInEndpoints, podutil.IsPodReady and
 * podutil.FindPort).
 */
import type { Container, Pod, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../../machinery/meta.js';

export type PodObject = Pod & KubeObject;
export type ServiceObject = Service & KubeObject;

/**
 * Whether a pod belongs among a Service's endpoints at all: it has an IP, is
 * not terminating (unless terminating pods are included), and has not run to
 * completion for good (per its restart policy).
 */
export function shouldPodBeInEndpoints(pod: PodObject, includeTerminating: boolean): boolean {
  if ((pod.status?.podIP ?? '') === '' && (pod.status?.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp !== undefined) return false;
  const phase = pod.status?.phase;
  const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
  if (restartPolicy === 'Never') return phase !== 'Failed' && phase !== 'Succeeded';
  if (restartPolicy === 'OnFailure') return phase !== 'Succeeded';
  return true;
}

/** The pod's Ready condition is True. */
export function isPodReady(pod: PodObject): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The Ready condition's last transition, or undefined. */
export function podReadyTransitionTime(pod: PodObject): string | undefined {
  return (pod.status?.conditions ?? []).find((c) => c.type === 'Ready')?.lastTransitionTime ?? undefined;
}

export type IPFamily = 'IPv4' | 'IPv6';

export const ipFamilyOf = (ip: string): IPFamily => (ip.includes(':') ? 'IPv6' : 'IPv4');

/** The pod's IPs: status.podIPs, or status.podIP when the list is absent. */
export function podIPs(pod: PodObject): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => typeof ip === 'string' && ip !== '');
  if (ips.length > 0) return ips;
  const ip = pod.status?.podIP ?? '';
  return ip === '' ? [] : [ip];
}

/** The IP families a Service serves: spec.ipFamilies, else the family of its clusterIP, else IPv4. */
export function serviceIPFamilies(service: ServiceObject): IPFamily[] {
  const families = (service.spec?.ipFamilies ?? []).filter((f): f is IPFamily => f === 'IPv4' || f === 'IPv6');
  if (families.length > 0) return families;
  const clusterIP = service.spec?.clusterIP ?? '';
  if (clusterIP !== '' && clusterIP !== 'None') return [ipFamilyOf(clusterIP)];
  return ['IPv4'];
}

/** The pod's IP of a family (upstream's podToEndpointAddressForService picks the Service's first family). */
export function podIPOfFamily(pod: PodObject, family: IPFamily): string | undefined {
  return podIPs(pod).find((ip) => ipFamilyOf(ip) === family);
}

export const isHeadless = (service: ServiceObject): boolean => service.spec?.clusterIP === 'None';

/**
 * The container port a Service port targets on a pod: a named targetPort is
 * looked up among the containers' ports (with the protocol), a number is used
 * as is, an absent one defaults to the Service port. Undefined when a name is
 * not found.
 */
export function findPort(pod: PodObject, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const containers: Container[] = [...(pod.spec?.containers ?? []), ...((pod.spec?.initContainers ?? []) as Container[])];
  for (const container of containers) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return port.containerPort;
    }
  }
  return undefined;
}

/** Whether the pod sets a hostname that names it inside a (headless) Service: spec.hostname with spec.subdomain equal to the Service's name. */
export function podHostnameForService(pod: PodObject, service: ServiceObject): string | undefined {
  const hostname = pod.spec?.hostname ?? '';
  if (hostname !== '' && pod.spec?.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace) return hostname;
  return undefined;
}
