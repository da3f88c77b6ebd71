/**
 * A container's requests and limits as the downward API exposes them
 * (resourceFieldRef), as upstream's pkg/api/v1/resource does: cpu in units
 * of the divisor rounded up from millicores (`limits.cpu` of 250m with
 * divisor 1 → "1", with divisor 1m → "250"), memory, ephemeral-storage and
 * hugepages in units of the divisor rounded up from bytes; a divisor of 0 or
 * none is 1. A limit the container does not set is the node's allocatable
 * (upstream's MergeContainerResourceLimits), an unset request is 0.
 */
import { quantityMilliValue, quantityValue } from '../../machinery/quantity.js';
import type { ContainerSpec, Pod } from '../types.js';

export interface ResourceFieldSelector {
  readonly containerName?: string;
  readonly resource: string;
  readonly divisor?: string | number;
}

export type ResourceList = Readonly<Record<string, string | number>>;

const DEFAULTED_LIMITS = ['cpu', 'memory', 'ephemeral-storage'];

/** The container (app, init or sidecar) of that name; throws upstream's message when the pod has none. */
export function findContainer(pod: Pod, name: string): ContainerSpec {
  const container = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c) => c.name === name);
  if (container === undefined) throw new Error(`container ${name} not found`);
  return container;
}

/** The container with every unset (or zero) cpu/memory/ephemeral-storage limit set to the node's allocatable. */
export function withAllocatableLimits(container: ContainerSpec, allocatable: ResourceList | undefined): ContainerSpec {
  const limits: Record<string, string> = {};
  for (const [name, value] of Object.entries(container.resources?.limits ?? {})) limits[name] = String(value);
  for (const name of DEFAULTED_LIMITS) {
    const current = limits[name];
    const available = allocatable?.[name];
    if ((current === undefined || quantityMilliValue(current) === 0) && available !== undefined) limits[name] = String(available);
  }
  return { ...container, resources: { ...container.resources, limits } };
}

/** The value of one resourceFieldRef for a container whose limits were already defaulted. */
export function containerResourceValue(selector: ResourceFieldSelector, container: ContainerSpec): string {
  const divisorText = selector.divisor === undefined ? '0' : String(selector.divisor);
  const divisor = quantityMilliValue(divisorText) === 0 ? '1' : divisorText;
  const dot = selector.resource.indexOf('.');
  const kind = selector.resource.slice(0, dot);
  const name = selector.resource.slice(dot + 1);
  if (dot > 0 && (kind === 'limits' || kind === 'requests')) {
    const list = (kind === 'limits' ? container.resources?.limits : container.resources?.requests) ?? {};
    const raw = list[name];
    const value = raw === undefined ? '0' : String(raw);
    if (name === 'cpu') return String(Math.ceil(milli(value) / milli(divisor)));
    if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) return String(Math.ceil(whole(value) / whole(divisor)));
  }
  throw new Error(`unsupported container resource : ${selector.resource}`);
}

const milli = (text: string): number => quantityMilliValue(text) ?? 0;
const whole = (text: string): number => quantityValue(text) ?? 0;
