/**
 * A pod's effective requests and limits as upstream's PodRequests/PodLimits
 * compute them (k8s.io/component-helpers/resource): the sum of the regular
 * containers and the sidecars (init containers with restartPolicy Always),
 * at least the largest init container (plus the sidecars started before it),
 * plus spec.overhead.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { formatAmount, nanoOf, parseAmount, type ResourceList } from './resource-list.js';

type Which = 'requests' | 'limits';

interface Sums {
  [name: string]: { nano: bigint; binary: boolean };
}

function addInto(target: Sums, list: ResourceList | undefined): void {
  for (const [name, value] of Object.entries(list ?? {})) {
    const amount = parseAmount(value);
    if (amount === undefined) continue;
    const current = target[name];
    target[name] = current === undefined ? { ...amount } : { nano: current.nano + amount.nano, binary: current.nano === 0n ? amount.binary : current.binary };
  }
}

function maxInto(target: Sums, candidate: Sums): void {
  for (const [name, amount] of Object.entries(candidate)) {
    const current = target[name];
    if (current === undefined || amount.nano > current.nano) target[name] = amount;
  }
}

const resourcesOf = (c: Container, which: Which): ResourceList | undefined => c.resources?.[which] as ResourceList | undefined;

function podTotals(pod: Pod, which: Which): Record<string, string> {
  const spec = pod.spec;
  const total: Sums = {};
  for (const c of spec?.containers ?? []) addInto(total, resourcesOf(c, which));
  const sidecars: Sums = {};
  const initMax: Sums = {};
  for (const c of spec?.initContainers ?? []) {
    if (c.restartPolicy === 'Always') {
      addInto(total, resourcesOf(c, which));
      addInto(sidecars, resourcesOf(c, which));
      // A sidecar also runs beside the init containers after it.
      maxInto(initMax, { ...sidecars });
    } else {
      const running: Sums = { ...sidecars };
      addInto(running, resourcesOf(c, which));
      maxInto(initMax, running);
    }
  }
  maxInto(total, initMax);
  if (which === 'requests' || Object.keys(total).length > 0) {
    // Overhead counts in limits only where limits are set (upstream: only for resources with a limit).
    for (const [name, value] of Object.entries((spec?.overhead ?? {}) as ResourceList)) {
      if (which === 'limits' && total[name] === undefined) continue;
      addInto(total, { [name]: value });
    }
  }
  return Object.fromEntries(Object.entries(total).map(([name, amount]) => [name, formatAmount(amount)]));
}

export const podRequests = (pod: Pod): Record<string, string> => podTotals(pod, 'requests');
export const podLimits = (pod: Pod): Record<string, string> => podTotals(pod, 'limits');

/** Upstream's QoS class: BestEffort when no container requests or limits any cpu or memory. */
export function isBestEffort(pod: Pod): boolean {
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  return containers.every((c) =>
    ['requests', 'limits'].every((which) => ['cpu', 'memory'].every((r) => nanoOf((c.resources?.[which as Which] as ResourceList | undefined)?.[r]) === 0n)),
  );
}
