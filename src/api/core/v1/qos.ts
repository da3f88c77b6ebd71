/**
 * A pod's quality-of-service class, as upstream computes it when the pod is
 * created (pkg/apis/core/helper/qos): Guaranteed when every container limits
 * cpu and memory and requests equal limits, BestEffort when nothing is
 * requested or limited, Burstable otherwise.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { parseQuantityNanos } from './quantity.js';

export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/**
 * The sums of the positive cpu and memory quantities of resource lists
 * (undefined: none yet): two fields rather than a map, the only two
 * resources that count.
 */
interface QOSSums {
  cpu: bigint | undefined;
  memory: bigint | undefined;
}

/** A positive quantity of `name` in `list`, if it has one. */
function positive(list: Record<string, unknown>, name: 'cpu' | 'memory'): bigint | undefined {
  if (!Object.hasOwn(list, name)) return undefined;
  const q = parseQuantityNanos(list[name] as string);
  return q === undefined || q <= 0n ? undefined : q;
}

/** Adds the positive cpu and memory quantities of `list` into `into`; whether it had both. */
function addQOSResources(into: QOSSums, list: Record<string, unknown> | null | undefined): boolean {
  if (list === null || list === undefined) return false;
  const cpu = positive(list, 'cpu');
  if (cpu !== undefined) into.cpu = into.cpu === undefined ? cpu : into.cpu + cpu;
  const memory = positive(list, 'memory');
  if (memory !== undefined) into.memory = into.memory === undefined ? memory : into.memory + memory;
  return cpu !== undefined && memory !== undefined;
}

export function podQOSClass(pod: Pod): PodQOSClass {
  const requests: QOSSums = { cpu: undefined, memory: undefined };
  const limits: QOSSums = { cpu: undefined, memory: undefined };
  let guaranteed = true;
  const spec = pod.spec;
  const podResources = (spec as { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } } | undefined)?.resources;
  if (podResources !== undefined) {
    addQOSResources(requests, podResources.requests);
    if (!addQOSResources(limits, podResources.limits)) guaranteed = false;
  } else {
    if (!addContainers(requests, limits, spec?.containers)) guaranteed = false;
    if (!addContainers(requests, limits, spec?.initContainers)) guaranteed = false;
  }
  if (requests.cpu === undefined && requests.memory === undefined && limits.cpu === undefined && limits.memory === undefined) return 'BestEffort';
  // Guaranteed: every limit holds both, and the requests are the limits.
  return guaranteed && requests.cpu === limits.cpu && requests.memory === limits.memory ? 'Guaranteed' : 'Burstable';
}

/** Adds the containers' requests and limits; whether every container limits both cpu and memory. */
function addContainers(requests: QOSSums, limits: QOSSums, containers: readonly Container[] | null | undefined): boolean {
  let all = true;
  if (containers === undefined || containers === null) return all;
  for (const c of containers) {
    addQOSResources(requests, c.resources?.requests as Record<string, unknown> | undefined);
    if (!addQOSResources(limits, c.resources?.limits as Record<string, unknown> | undefined)) all = false;
  }
  return all;
}
