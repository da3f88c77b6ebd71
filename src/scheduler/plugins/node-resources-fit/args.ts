/**
 * NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1): upstream's v1
 * defaults (LeastAllocated on cpu and memory with weight 1; weight 0 → 1)
 * then upstream's ValidateNodeResourcesFitArgs, with its messages.
 */
import { unsupportedValueText } from '../../../machinery/selectors/field-error-text.js';
import { goQuote } from '../../../machinery/selectors/go-format.js';
import { labelKeyProblems } from '../../../machinery/selectors/label-syntax.js';
import { argsObject, asObject, optionalArray, optionalInteger, optionalObject, optionalString, optionalStringArray } from '../helper/args.js';
import { DEFAULT_RESOURCE_SPECS, invalidArg, parseResourceSpecs, throwIfErrors, type ResourceSpec } from '../helper/resource-allocation.js';

export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
const STRATEGY_TYPES: readonly string[] = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];

/** Upstream's MaxCustomPriorityScore: shape scores are 0..10, scaled ×10 to node scores. */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;

export interface UtilizationShapePoint {
  readonly utilization: number;
  readonly score: number;
}

export interface ScoringStrategy {
  readonly type: ScoringStrategyType;
  readonly resources: readonly ResourceSpec[];
  readonly requestedToCapacityRatio?: { readonly shape: readonly UtilizationShapePoint[] };
}

export interface NodeResourcesFitArgs {
  readonly ignoredResources: readonly string[];
  readonly ignoredResourceGroups: readonly string[];
  readonly scoringStrategy: ScoringStrategy;
}

function validateLabelName(name: string, path: string, errors: string[]): void {
  for (const problem of labelKeyProblems(name)) errors.push(invalidArg(path, name, problem));
}

function parseShape(list: readonly unknown[], path: string): UtilizationShapePoint[] {
  return list.map((item, i) => {
    const obj = asObject(item, `${path}[${i}]`);
    return {
      utilization: optionalInteger(obj, 'utilization', `${path}[${i}].utilization`) ?? 0,
      score: optionalInteger(obj, 'score', `${path}[${i}].score`) ?? 0,
    };
  });
}

function validateShape(shape: readonly UtilizationShapePoint[], path: string, errors: string[]): void {
  if (shape.length === 0) {
    errors.push(`${path}: Required value: at least one point must be specified`);
    return;
  }
  for (let i = 1; i < shape.length; i++) {
    if (shape[i - 1]!.utilization >= shape[i]!.utilization) {
      errors.push(invalidArg(`${path}[${i}].utilization`, shape[i]!.utilization, 'utilization values must be sorted in increasing order'));
      break;
    }
  }
  shape.forEach((point, i) => {
    if (point.utilization < 0 || point.utilization > 100) errors.push(invalidArg(`${path}[${i}].utilization`, point.utilization, 'not in valid range [0, 100]'));
    if (point.score < 0 || point.score > MAX_CUSTOM_PRIORITY_SCORE) errors.push(invalidArg(`${path}[${i}].score`, point.score, `not in valid range [0, ${MAX_CUSTOM_PRIORITY_SCORE}]`));
  });
}

/** Defaults and validates the args; throws an Error naming the bad fields. */
export function parseNodeResourcesFitArgs(raw: unknown): NodeResourcesFitArgs {
  const args = argsObject(raw, 'NodeResourcesFitArgs');
  const ignoredResources = optionalStringArray(args, 'ignoredResources', 'ignoredResources');
  const ignoredResourceGroups = optionalStringArray(args, 'ignoredResourceGroups', 'ignoredResourceGroups');
  const strategy = optionalObject(args, 'scoringStrategy', 'scoringStrategy');
  const type = strategy === undefined ? 'LeastAllocated' : (optionalString(strategy, 'type', 'scoringStrategy.type') ?? '');
  const resourceList = strategy === undefined ? undefined : optionalArray(strategy, 'resources', 'scoringStrategy.resources');
  const resources = resourceList === undefined || resourceList.length === 0 ? [...DEFAULT_RESOURCE_SPECS] : parseResourceSpecs(resourceList, 'scoringStrategy.resources');
  const ratio = strategy === undefined ? undefined : optionalObject(strategy, 'requestedToCapacityRatio', 'scoringStrategy.requestedToCapacityRatio');
  const shape = ratio === undefined ? undefined : parseShape(optionalArray(ratio, 'shape', 'scoringStrategy.requestedToCapacityRatio.shape') ?? [], 'scoringStrategy.requestedToCapacityRatio.shape');

  const errors: string[] = [];
  ignoredResources.forEach((r, i) => validateLabelName(r, `ignoredResources[${i}]`, errors));
  ignoredResourceGroups.forEach((g, i) => {
    const path = `ignoredResourceGroups[${i}]`;
    if (g.includes('/')) errors.push(invalidArg(path, g, "resource group name can't contain '/'"));
    validateLabelName(g, path, errors);
  });
  if (!STRATEGY_TYPES.includes(type)) errors.push(unsupportedValueText('scoringStrategy.type', goQuote(type), STRATEGY_TYPES));
  resources.forEach((r, i) => {
    if (r.weight <= 0 || r.weight > 100) errors.push(invalidArg(`scoringStrategy.resources[${i}].weight`, r.weight, `resource weight of ${r.name} not in valid range (0, 100]`));
  });
  // Upstream reports the shape under scoringStrategy.shape.
  if (shape !== undefined) validateShape(shape, 'scoringStrategy.shape', errors);
  if (type === 'RequestedToCapacityRatio' && shape === undefined) {
    errors.push('scoringStrategy.requestedToCapacityRatio: Required value: the RequestedToCapacityRatio strategy needs a shape');
  }
  throwIfErrors(errors);
  return {
    ignoredResources,
    ignoredResourceGroups,
    scoringStrategy: {
      type: type as ScoringStrategyType,
      resources,
      ...(shape === undefined ? {} : { requestedToCapacityRatio: { shape } }),
    },
  };
}
