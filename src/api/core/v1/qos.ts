/**
 * A pod's quality-of-service class, as upstream computes it when the pod is
 * created (pkg/apis/core/helper/qos): Guaranteed when every container limits
 * cpu and memory and requests equal limits, BestEffort when nothing is
 * requested or limited, Burstable otherwise.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseQuantityNanos } from './quantity.js';

const QOS_RESOURCES = new Set(['cpu', 'memory']);

export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** Bits of what a resource list holds among the QoS resources (a positive quantity of each). */
const CPU = 1;
const MEMORY = 2;

/** Adds the positive cpu and memory quantities of `list` into `into`; which of the two it had, as bits. */
function addQOSResources(into: Map<string, bigint>, list: Record<string, unknown> | null | undefined): number {
  let found = 0;
  if (list === null || list === undefined) return found;
  for (const name of Object.keys(list)) {
    if (!QOS_RESOURCES.has(name)) continue;
    const q = parseQuantityNanos(list[name] as string);
    if (q === undefined || q <= 0n) continue;
    found |= name === 'cpu' ? CPU : MEMORY;
    into.set(name, (into.get(name) ?? 0n) + q);
  }
  return found;
}

export function podQOSClass(pod: Pod): PodQOSClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const spec = pod.spec;
  const podResources = (spec as { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } } | undefined)?.resources;
  if (podResources !== undefined) {
    addQOSResources(requests, podResources.requests);
    if (addQOSResources(limits, podResources.limits) !== (CPU | MEMORY)) guaranteed = false;
  } else {
    for (const containers of [spec?.containers, spec?.initContainers]) {
      for (const c of containers ?? []) {
        addQOSResources(requests, c.resources?.requests as Record<string, unknown> | undefined);
        if (addQOSResources(limits, c.resources?.limits as Record<string, unknown> | undefined) !== (CPU | MEMORY)) guaranteed = false;
      }
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
