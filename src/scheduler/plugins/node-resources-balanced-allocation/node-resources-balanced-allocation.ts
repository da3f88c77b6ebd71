/**
 * NodeResourcesBalancedAllocation: prefers nodes whose resource usage would
 * stay balanced once the pod is placed: 100 × (1 − the standard deviation of
 * the requested/allocatable fractions of the configured resources). Scores
 * on actual requests (a pod that requests nothing is skipped).
 */
import type { CycleState } from '../../framework/cycle-state.js';
import { MAX_NODE_SCORE, type PluginFactory, type PreScorePlugin, type ScorePlugin } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { skip, type PluginStatus, type Status } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { argsObject, optionalArray } from '../helper/args.js';
import { DEFAULT_RESOURCE_SPECS, invalidArg, parseResourceSpecs, podRequestList, scoreResourceAllocation, throwIfErrors, type ResourceSpec } from '../helper/resource-allocation.js';

export const NAME = 'NodeResourcesBalancedAllocation';
const PRE_SCORE_KEY = `PreScore${NAME}`;

export interface BalancedAllocationArgs {
  readonly resources: readonly ResourceSpec[];
}

/** Upstream's balancedResourceScorer: fractions capped at 1; for two resources std = |f1 − f2| / 2. */
export function balancedResourceScore(requested: readonly number[], allocatable: readonly number[]): number {
  const fractions: number[] = [];
  let total = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const fraction = Math.min(requested[i]! / allocatable[i]!, 1);
    total += fraction;
    fractions.push(fraction);
  }
  let std = 0;
  if (fractions.length === 2) {
    std = Math.abs((fractions[0]! - fractions[1]!) / 2);
  } else if (fractions.length > 2) {
    const mean = total / fractions.length;
    let sum = 0;
    for (const f of fractions) sum += (f - mean) * (f - mean);
    std = Math.sqrt(sum / fractions.length);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

const isBestEffort = (requests: readonly number[]): boolean => requests.every((r) => r === 0);

export class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = NAME;

  constructor(readonly args: BalancedAllocationArgs) {}

  preScore(state: CycleState, pod: Pod): PluginStatus {
    const requests = podRequestList(pod, this.args.resources, true);
    if (isBestEffort(requests)) return skip();
    state.write(PRE_SCORE_KEY, requests);
    return undefined;
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number | Status {
    let requests = state.read<number[]>(PRE_SCORE_KEY);
    if (requests === undefined) {
      requests = podRequestList(pod, this.args.resources, true);
      if (isBestEffort(requests)) return 0;
    }
    return scoreResourceAllocation(nodeInfo, this.args.resources, requests, true, balancedResourceScore);
  }

  scoreExtensions(): undefined {
    return undefined;
  }
}

/** Upstream's v1 defaults (cpu and memory, weight 0 → 1) and ValidateNodeResourcesBalancedAllocationArgs (no duplicates, weight must be 1). */
export function parseBalancedAllocationArgs(raw: unknown): BalancedAllocationArgs {
  const args = argsObject(raw, 'NodeResourcesBalancedAllocationArgs');
  const list = optionalArray(args, 'resources', 'resources');
  const resources = list === undefined || list.length === 0 ? [...DEFAULT_RESOURCE_SPECS] : parseResourceSpecs(list, 'resources');
  const errors: string[] = [];
  const seen = new Set<string>();
  resources.forEach((r, i) => {
    if (seen.has(r.name)) errors.push(`resources[${i}].name: Duplicate value: "${r.name}"`);
    seen.add(r.name);
    if (r.weight !== 1) errors.push(invalidArg(`resources[${i}].weight`, r.weight, 'must be 1'));
  });
  throwIfErrors(errors);
  return { resources };
}

export const newNodeResourcesBalancedAllocation: PluginFactory = (args) => new NodeResourcesBalancedAllocation(parseBalancedAllocationArgs(args));
