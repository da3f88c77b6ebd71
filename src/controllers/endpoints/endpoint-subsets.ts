/**
 * The subsets of a Service's Endpoints object (upstream's endpoints
 * controller syncService and endpoints.RepackSubsets): one address per pod
 * that should be in the endpoints, ready or not ready by the pod's Ready
 * condition (all ready with publishNotReadyAddresses), grouped by identical
 * sets of resolved ports, sorted so that equal states compare equal.
 */
import type { EndpointAddress, EndpointPort, EndpointSubset } from 'kubernetes-types/core/v1.js';
import { jsonEqual } from '../../machinery/meta.js';
import {
  findPort,
  isHeadless,
  isPodReady,
  podHostnameForService,
  podIPOfFamily,
  serviceIPFamilies,
  shouldPodBeInEndpoints,
  type PodObject,
  type ServiceObject,
} from './pod-rules.js';

/** Upstream's maxCapacity: an Endpoints object holds at most this many addresses. */
export const MAX_ENDPOINTS_CAPACITY = 1000;

export interface ComputedSubsets {
  readonly subsets: EndpointSubset[];
  readonly ready: number;
  readonly notReady: number;
}

/** The address of a pod for a Service, in the Service's first IP family (undefined when the pod has no such IP). */
export function podToEndpointAddress(service: ServiceObject, pod: PodObject): EndpointAddress | undefined {
  const family = serviceIPFamilies(service)[0] ?? 'IPv4';
  const ip = podIPOfFamily(pod, family);
  if (ip === undefined) return undefined;
  const address: EndpointAddress = {
    ip,
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
  };
  if ((pod.spec?.nodeName ?? '') !== '') address.nodeName = pod.spec!.nodeName!;
  const hostname = podHostnameForService(pod, service);
  if (hostname !== undefined) address.hostname = hostname;
  return address;
}

export function computeEndpointSubsets(service: ServiceObject, pods: readonly PodObject[]): ComputedSubsets {
  const tolerateUnready = service.spec?.publishNotReadyAddresses === true;
  const raw: EndpointSubset[] = [];
  let ready = 0;
  let notReady = 0;
  const add = (pod: PodObject, address: EndpointAddress, port: EndpointPort | undefined): void => {
    const ports = port === undefined ? [] : [port];
    if (tolerateUnready || isPodReady(pod)) {
      raw.push({ addresses: [address], ports });
      ready++;
    } else {
      raw.push({ notReadyAddresses: [address], ports });
      notReady++;
    }
  };
  const servicePorts = service.spec?.ports ?? [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const address = podToEndpointAddress(service, pod);
    if (address === undefined) continue;
    if (servicePorts.length === 0) {
      if (isHeadless(service)) add(pod, address, undefined);
      continue;
    }
    for (const servicePort of servicePorts) {
      const portNumber = findPort(pod, servicePort);
      if (portNumber === undefined) continue;
      const port: EndpointPort = { port: portNumber, protocol: servicePort.protocol ?? 'TCP' };
      if (servicePort.name !== undefined && servicePort.name !== '') port.name = servicePort.name;
      if (servicePort.appProtocol !== undefined) port.appProtocol = servicePort.appProtocol;
      add(pod, address, port);
    }
  }
  return { subsets: repackSubsets(raw), ready, notReady };
}

const addressKey = (a: EndpointAddress): string => `${a.ip}\u0000${a.targetRef?.uid ?? ''}`;
const portKey = (p: EndpointPort): string => `${p.name ?? ''}\u0000${p.port}\u0000${p.protocol ?? ''}\u0000${p.appProtocol ?? ''}`;
const compareBy =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

/**
 * Regroup subsets so that each address appears once per readiness, in the
 * subset of exactly the ports it serves; addresses and ports sorted.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  interface Entry {
    address: EndpointAddress;
    ready: boolean;
    ports: Map<string, EndpointPort>;
  }
  const entries = new Map<string, Entry>();
  const note = (address: EndpointAddress, ready: boolean, ports: readonly EndpointPort[]): void => {
    const key = `${ready ? 'r' : 'n'}\u0000${addressKey(address)}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = { address, ready, ports: new Map() };
      entries.set(key, entry);
    }
    for (const port of ports) entry.ports.set(portKey(port), port);
  };
  for (const subset of subsets) {
    for (const address of subset.addresses ?? []) note(address, true, subset.ports ?? []);
    for (const address of subset.notReadyAddresses ?? []) note(address, false, subset.ports ?? []);
  }
  const groups = new Map<string, { ports: EndpointPort[]; addresses: EndpointAddress[]; notReadyAddresses: EndpointAddress[] }>();
  for (const entry of entries.values()) {
    const ports = [...entry.ports.values()].sort(compareBy(portKey));
    const key = ports.map(portKey).join('\u0001');
    let group = groups.get(key);
    if (group === undefined) {
      group = { ports, addresses: [], notReadyAddresses: [] };
      groups.set(key, group);
    }
    (entry.ready ? group.addresses : group.notReadyAddresses).push(entry.address);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, group]) => {
      const subset: EndpointSubset = {};
      if (group.addresses.length > 0) subset.addresses = group.addresses.sort(compareBy(addressKey));
      if (group.notReadyAddresses.length > 0) subset.notReadyAddresses = group.notReadyAddresses.sort(compareBy(addressKey));
      if (group.ports.length > 0) subset.ports = group.ports;
      return subset;
    });
}

/** Subsets equal, ignoring the pods' resourceVersions in targetRefs (a pod's unrelated change must not rewrite the Endpoints). */
export function subsetsEqualIgnoringResourceVersion(a: readonly EndpointSubset[] | undefined, b: readonly EndpointSubset[] | undefined): boolean {
  const strip = (subsets: readonly EndpointSubset[] | undefined): unknown =>
    (subsets ?? []).map((s) => ({
      addresses: (s.addresses ?? []).map(stripAddress),
      notReadyAddresses: (s.notReadyAddresses ?? []).map(stripAddress),
      ports: s.ports ?? [],
    }));
  return jsonEqual(strip(a), strip(b));
}

function stripAddress(address: EndpointAddress): EndpointAddress {
  if (address.targetRef?.resourceVersion === undefined) return address;
  const { resourceVersion: _ignored, ...targetRef } = address.targetRef;
  return { ...address, targetRef };
}

/**
 * Truncate to {@link MAX_ENDPOINTS_CAPACITY} addresses as upstream does:
 * ready addresses first, each subset keeping its proportion (rounded up).
 * Returns whether it truncated.
 */
export function truncateSubsets(subsets: EndpointSubset[]): boolean {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= MAX_ENDPOINTS_CAPACITY) return false;
  const truncateReady = totalReady > MAX_ENDPOINTS_CAPACITY;
  const max = truncateReady ? MAX_ENDPOINTS_CAPACITY : MAX_ENDPOINTS_CAPACITY - totalReady;
  const total = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = max;
  for (const subset of subsets) {
    const inSubset = truncateReady ? (subset.addresses?.length ?? 0) : (subset.notReadyAddresses?.length ?? 0);
    const toBeAdded = Math.min(Math.ceil((inSubset / total) * max), canBeAdded);
    if (truncateReady) {
      subset.addresses = (subset.addresses ?? []).slice(0, toBeAdded);
      delete subset.notReadyAddresses;
      canBeAdded -= subset.addresses.length;
    } else {
      subset.notReadyAddresses = (subset.notReadyAddresses ?? []).slice(0, toBeAdded);
      canBeAdded -= subset.notReadyAddresses.length;
    }
  }
  return true;
}

export const countAddresses = (subsets: readonly EndpointSubset[] | undefined): number =>
  (subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);

