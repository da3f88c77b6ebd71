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

export function podQOSClass(pod: Pod): PodQOSClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const spec = pod.spec;
  const add = (into: Map<string, bigint>, list: Record<string, unknown> | undefined, found?: Set<string>): void => {
    for (const [name, value] of Object.entries(list ?? {})) {
      if (!QOS_RESOURCES.has(name)) continue;
      const q = parseQuantityNanos(value as string);
      if (q === undefined || q <= 0n) continue;
      found?.add(name);
      into.set(name, (into.get(name) ?? 0n) + q);
    }
  };
  const podResources = (spec as { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } } | undefined)?.resources;
  if (podResources !== undefined) {
    add(requests, podResources.requests);
    const found = new Set<string>();
    add(limits, podResources.limits, found);
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  } else {
    for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
      add(requests, c.resources?.requests as Record<string, unknown> | undefined);
      const found = new Set<string>();
      add(limits, c.resources?.limits as Record<string, unknown> | undefined, found);
      if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
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
