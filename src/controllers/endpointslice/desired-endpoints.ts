/**
 * What a Service's EndpointSlices should say about each of its pods
 * (upstream's endpointslice podToEndpoint and getEndpointPorts): one
 * endpoint per pod with an address of the slice's address type, its
 * conditions (serving: Ready; terminating: being deleted; ready: serving and
 * not terminating, or always with publishNotReadyAddresses), its node and
 * zone; terminating pods are kept (with their conditions) as upstream does.
 * Pods are grouped by the set of ports they resolve, one group per slice set.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointPort } from 'kubernetes-types/discovery/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import {
  findPort,
  isPodReady,
  podHostnameForService,
  podIPs,
  ipFamilyOf,
  shouldPodBeInEndpoints,
  type IPFamily,
  type PodObject,
  type ServiceObject,
} from '../endpoints/pod-rules.js';

export type NodeObject = Node & KubeObject;

export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export interface DesiredGroup {
  /** The group's identity: its ports, canonically encoded. */
  readonly portKey: string;
  readonly ports: EndpointPort[];
  /** By endpoint key (see endpointKey). */
  readonly endpoints: Map<string, Endpoint>;
}

export interface DesiredState {
  readonly groups: Map<string, DesiredGroup>;
  /** Pods whose node is not (yet) in the cache: left out this time, and the sync retried (as upstream). */
  readonly podsOnMissingNodes: number;
}

/** An endpoint's identity across syncs: its pod (by uid) and first address. */
export function endpointKey(endpoint: Endpoint): string {
  return `${endpoint.targetRef?.namespace ?? ''}/${endpoint.targetRef?.name ?? ''}/${endpoint.targetRef?.uid ?? ''}/${endpoint.addresses[0] ?? ''}`;
}

export function portsKey(ports: readonly EndpointPort[] | undefined | null): string {
  return (ports ?? [])
    .map((p) => `${p.name ?? ''}\u0000${p.port ?? ''}\u0000${p.protocol ?? ''}\u0000${p.appProtocol ?? ''}`)
    .sort()
    .join('\u0001');
}

export function endpointPorts(service: ServiceObject, pod: PodObject): EndpointPort[] {
  const ports: EndpointPort[] = [];
  for (const servicePort of service.spec?.ports ?? []) {
    const port = findPort(pod, servicePort);
    if (port === undefined) continue;
    const endpointPort: EndpointPort = { name: servicePort.name ?? '', port, protocol: servicePort.protocol ?? 'TCP' };
    if (servicePort.appProtocol !== undefined) endpointPort.appProtocol = servicePort.appProtocol;
    ports.push(endpointPort);
  }
  return ports;
}

export function podToEndpoint(pod: PodObject, node: NodeObject | undefined, service: ServiceObject, addressType: IPFamily): Endpoint | undefined {
  const addresses = podIPs(pod).filter((ip) => ipFamilyOf(ip) === addressType);
  if (addresses.length === 0) return undefined;
  const serving = isPodReady(pod);
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  const ready = service.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const endpoint: Endpoint = {
    addresses: [addresses[0]!],
    conditions: { ready, serving, terminating },
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
  };
  const hostname = podHostnameForService(pod, service);
  if (hostname !== undefined) endpoint.hostname = hostname;
  if ((pod.spec?.nodeName ?? '') !== '') endpoint.nodeName = pod.spec!.nodeName!;
  const zone = node?.metadata.labels?.[ZONE_LABEL];
  if (zone !== undefined) endpoint.zone = zone;
  return endpoint;
}

export function desiredEndpoints(
  service: ServiceObject,
  pods: readonly PodObject[],
  addressType: IPFamily,
  nodeByName: (name: string) => NodeObject | undefined,
): DesiredState {
  const groups = new Map<string, DesiredGroup>();
  let podsOnMissingNodes = 0;
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const nodeName = pod.spec?.nodeName ?? '';
    const node = nodeName === '' ? undefined : nodeByName(nodeName);
    if (nodeName !== '' && node === undefined) {
      podsOnMissingNodes++;
      continue;
    }
    const endpoint = podToEndpoint(pod, node, service, addressType);
    if (endpoint === undefined) continue;
    const ports = endpointPorts(service, pod);
    const key = portsKey(ports);
    let group = groups.get(key);
    if (group === undefined) {
      group = { portKey: key, ports, endpoints: new Map() };
      groups.set(key, group);
    }
    group.endpoints.set(endpointKey(endpoint), endpoint);
  }
  return { groups, podsOnMissingNodes };
}
