/**
 * What NodeResourcesFit's Score and NodeResourcesBalancedAllocation share
 * (upstream's noderesources resourceAllocationScorer): the configured
 * resources with weights, the pod's request for each (computed once per
 * cycle in PreScore), and per node the (allocatable, requested-after-placing)
 * pair of each resource, handed to a strategy's scorer.
 */
import { invalidValueText } from '../../../machinery/selectors/field-error-text.js';
import { goQuote } from '../../../machinery/selectors/go-format.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { computePodRequests, type Resource } from '../../framework/resource.js';
import type { Pod } from '../../framework/types.js';
import { asObject, optionalInteger, type ArgsObject } from './args.js';

export interface ResourceSpec {
  readonly name: string;
  readonly weight: number;
}

/** Upstream's default resources for scoring: cpu and memory, weight 1 each. */
export const DEFAULT_RESOURCE_SPECS: readonly ResourceSpec[] = Object.freeze([
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
]);

/** A strategy: per-resource requested and allocatable (0 = not scored on this node) → node score. */
export type ResourceScorer = (requested: readonly number[], allocatable: readonly number[]) => number;

/** The amount of one resource in a Resource (cpu in millicores). */
export function resourceAmount(r: Resource, name: string): number {
  switch (name) {
    case 'cpu':
      return r.milliCPU;
    case 'memory':
      return r.memory;
    case 'ephemeral-storage':
      return r.ephemeralStorage;
    case 'pods':
      return r.allowedPodNumber;
    default:
      return r.scalar.get(name) ?? 0;
  }
}

/**
 * The pod's request for each resource, in `resources` order. Scoring with
 * `useRequested` false counts containers without a cpu/memory request at
 * upstream's defaults (100m, 200Mi), so that such pods still spread.
 */
export function podRequestList(pod: Pod, resources: readonly ResourceSpec[], useRequested: boolean): number[] {
  const requests = computePodRequests(pod, { nonZero: !useRequested });
  return resources.map((r) => resourceAmount(requests, r.name));
}

const scratchArrays: [number[], number[]] = [[], []];

/** A reused array of `length` (its values are all overwritten by the caller). */
function scratch(which: 0 | 1, length: number): number[] {
  const array = scratchArrays[which];
  if (array.length !== length) {
    array.length = 0;
    for (let i = 0; i < length; i++) array.push(0);
  }
  return array;
}

const isScalarResourceName = (name: string): boolean => name !== 'cpu' && name !== 'memory' && name !== 'ephemeral-storage' && name !== 'pods';

/**
 * The node's score for the pod: for each resource, allocatable and
 * (already requested on the node + the pod's request); a resource the node
 * does not have, or a scalar resource the pod does not request, is left out (0, 0).
 */
export function scoreResourceAllocation(
  nodeInfo: NodeInfo,
  resources: readonly ResourceSpec[],
  podRequests: readonly number[],
  useRequested: boolean,
  scorer: ResourceScorer,
): number {
  // Score runs synchronously for every node: reuse two scratch arrays (scorers only read them during the call).
  const requested = scratch(0, resources.length);
  const allocatable = scratch(1, resources.length);
  const onNode = useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
  for (let i = 0; i < resources.length; i++) {
    const name = resources[i]!.name;
    const podRequest = podRequests[i] ?? 0;
    let alloc = 0;
    let req = 0;
    switch (name) {
      case 'cpu':
        alloc = nodeInfo.allocatable.milliCPU;
        req = onNode.milliCPU + podRequest;
        break;
      case 'memory':
        alloc = nodeInfo.allocatable.memory;
        req = onNode.memory + podRequest;
        break;
      case 'ephemeral-storage':
        alloc = nodeInfo.allocatable.ephemeralStorage;
        req = nodeInfo.requested.ephemeralStorage + podRequest;
        break;
      default:
        if (podRequest === 0 && isScalarResourceName(name)) break;
        if (nodeInfo.allocatable.scalar.has(name)) {
          alloc = nodeInfo.allocatable.scalar.get(name) ?? 0;
          req = (nodeInfo.requested.scalar.get(name) ?? 0) + podRequest;
        }
    }
    if (alloc === 0) req = 0;
    allocatable[i] = alloc;
    requested[i] = req;
  }
  return scorer(requested, allocatable);
}

/** Parse `resources: [{name, weight}]`; a missing or 0 weight becomes 1 (upstream's v1 defaults). */
export function parseResourceSpecs(list: readonly unknown[], path: string): ResourceSpec[] {
  return list.map((item, i) => {
    const obj: ArgsObject = asObject(item, `${path}[${i}]`);
    const name = obj['name'];
    if (typeof name !== 'string') throw new Error(`${path}[${i}].name: must be a string`);
    const weight = optionalInteger(obj, 'weight', `${path}[${i}].weight`) ?? 0;
    return { name, weight: weight === 0 ? 1 : weight };
  });
}

/** `path: Invalid value: v: detail` with v printed as Go does. */
export function invalidArg(path: string, value: string | number, detail: string): string {
  return invalidValueText(path, typeof value === 'string' ? goQuote(value) : String(value), detail);
}

/** One error alone as itself, more as upstream's aggregate `[a, b]`. */
export function throwIfErrors(errors: readonly string[]): void {
  const unique = [...new Set(errors)];
  if (unique.length === 1) throw new Error(unique[0]);
  if (unique.length > 1) throw new Error(`[${unique.join(', ')}]`);
}
