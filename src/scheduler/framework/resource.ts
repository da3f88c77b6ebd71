/**
 * Resource amounts as the scheduler counts them (upstream's framework.Resource):
 * cpu in millicores, memory and ephemeral storage in bytes, the pod count, and
 * every other resource (extended resources such as example.com/gpu,
 * hugepages-*) as a whole number under its name.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { quantityMilliValue, quantityValue } from '../../machinery/quantity.js';
import type { Pod } from './types.js';

export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Only meaningful for a node's allocatable (status.allocatable.pods). */
  allowedPodNumber: number;
  /** Every other resource by name. */
  scalar: Map<string, number>;
}

/** Upstream's defaults for a container that requests no cpu / memory, used only for scoring (non-zero requests). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export function newResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: new Map() };
}

export function cloneResource(r: Resource): Resource {
  // One object shape for every Resource (a spread would give clones another): Filter reads them per node.
  return { milliCPU: r.milliCPU, memory: r.memory, ephemeralStorage: r.ephemeralStorage, allowedPodNumber: r.allowedPodNumber, scalar: new Map(r.scalar) };
}

/** A Resource from a resource list (requests, limits, overhead, node.status.allocatable). Unparsable quantities count 0. */
export function resourceFromList(list: Readonly<Record<string, string>> | undefined): Resource {
  const r = newResource();
  if (list !== undefined) for (const [name, quantity] of Object.entries(list)) addQuantity(r, name, quantity);
  return r;
}

function addQuantity(r: Resource, name: string, quantity: string): void {
  switch (name) {
    case 'cpu':
      r.milliCPU += quantityMilliValue(quantity) ?? 0;
      return;
    case 'memory':
      r.memory += quantityValue(quantity) ?? 0;
      return;
    case 'ephemeral-storage':
      r.ephemeralStorage += quantityValue(quantity) ?? 0;
      return;
    case 'pods':
      r.allowedPodNumber += quantityValue(quantity) ?? 0;
      return;
    default:
      r.scalar.set(name, (r.scalar.get(name) ?? 0) + (quantityValue(quantity) ?? 0));
  }
}

/** into += other (all fields). */
export function addResource(into: Resource, other: Resource): void {
  into.milliCPU += other.milliCPU;
  into.memory += other.memory;
  into.ephemeralStorage += other.ephemeralStorage;
  into.allowedPodNumber += other.allowedPodNumber;
  for (const [name, value] of other.scalar) into.scalar.set(name, (into.scalar.get(name) ?? 0) + value);
}

/** into -= other (all fields). */
export function subtractResource(into: Resource, other: Resource): void {
  into.milliCPU -= other.milliCPU;
  into.memory -= other.memory;
  into.ephemeralStorage -= other.ephemeralStorage;
  into.allowedPodNumber -= other.allowedPodNumber;
  for (const [name, value] of other.scalar) into.scalar.set(name, (into.scalar.get(name) ?? 0) - value);
}

/** into = max(into, other), field by field. */
function maxInto(into: Resource, other: Resource): void {
  into.milliCPU = Math.max(into.milliCPU, other.milliCPU);
  into.memory = Math.max(into.memory, other.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, other.ephemeralStorage);
  for (const [name, value] of other.scalar) into.scalar.set(name, Math.max(into.scalar.get(name) ?? 0, value));
}

export interface PodRequestOptions {
  /** Count a container without a cpu/memory request as DEFAULT_MILLI_CPU_REQUEST/DEFAULT_MEMORY_REQUEST (the non-zero requests used by scoring). */
  readonly nonZero?: boolean;
}

function containerRequests(container: Container, nonZero: boolean): Resource {
  const r = resourceFromList(container.resources?.requests as Record<string, string> | undefined);
  if (nonZero) {
    const requests = container.resources?.requests as Record<string, string> | undefined;
    if (requests?.cpu === undefined) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
    if (requests?.memory === undefined) r.memory = DEFAULT_MEMORY_REQUEST;
  }
  return r;
}

/**
 * What a pod asks of a node, as upstream's resourcehelper.PodRequests counts
 * it: the sum of its containers; restartable init containers (sidecars,
 * restartPolicy Always) run beside them and add to it; each ordinary init
 * container runs alone beside the sidecars started before it, so the pod needs
 * at least the largest such moment; then the RuntimeClass overhead is added.
 */
export function computePodRequests(pod: Pod, options: PodRequestOptions = {}): Resource {
  const nonZero = options.nonZero === true;
  const requests = newResource();
  for (const c of pod.spec?.containers ?? []) addResource(requests, containerRequests(c, nonZero));
  const sidecars = newResource();
  const initPeak = newResource();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = containerRequests(c, nonZero);
    if (c.restartPolicy === 'Always') {
      addResource(requests, own);
      addResource(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      addResource(own, sidecars);
      maxInto(initPeak, own);
    }
  }
  maxInto(requests, initPeak);
  const overhead = pod.spec?.overhead as Record<string, string> | undefined;
  if (overhead !== undefined) addResource(requests, resourceFromList(overhead));
  requests.allowedPodNumber = 0;
  return requests;
}
