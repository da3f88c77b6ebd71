/**
 * DefaultPreemptionArgs (upstream's kubescheduler.config.k8s.io/v1 type):
 * how many candidate nodes the dry run looks for before it picks one. The
 * dry run stops after max(minCandidateNodesPercentage% of the potential
 * nodes, minCandidateNodesAbsolute) candidates, capped at the number of
 * potential nodes; fewer candidates make preemption faster but may pick a
 * worse node.
 */
import { formatFieldErrors, invalid, type FieldError } from '../../../machinery/field-errors.js';
import { isPlainObject } from '../../../machinery/meta.js';

export interface DefaultPreemptionArgs {
  /** 0–100 (default 10). */
  readonly minCandidateNodesPercentage: number;
  /** ≥ 0 (default 100). */
  readonly minCandidateNodesAbsolute: number;
}

export const DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10;
export const DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100;

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'minCandidateNodesPercentage', 'minCandidateNodesAbsolute']);

/** Upstream's ValidateDefaultPreemptionArgs: the field errors, empty when valid. */
export function validateDefaultPreemptionArgs(args: DefaultPreemptionArgs): FieldError[] {
  const errors: FieldError[] = [];
  const { minCandidateNodesPercentage: percentage, minCandidateNodesAbsolute: absolute } = args;
  if (percentage < 0 || percentage > 100) errors.push(invalid('minCandidateNodesPercentage', percentage, 'not in valid range [0, 100]'));
  if (absolute < 0) errors.push(invalid('minCandidateNodesAbsolute', absolute, 'not in valid range [0, inf)'));
  if (percentage === 0 && absolute === 0) {
    errors.push(
      invalid('minCandidateNodesPercentage', percentage, 'cannot be zero at the same time as minCandidateNodesAbsolute'),
      invalid('minCandidateNodesAbsolute', absolute, 'cannot be zero at the same time as minCandidateNodesPercentage'),
    );
  }
  return errors;
}

function integerField(raw: Record<string, unknown>, field: string, fallback: number): number {
  const value = raw[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`DefaultPreemptionArgs: ${field} must be an integer, got ${JSON.stringify(value)}`);
  return value;
}

/** The args of a pluginConfig entry (undefined: defaults), defaulted and validated; throws Error with upstream's message for bad args. */
export function parseDefaultPreemptionArgs(raw: unknown): DefaultPreemptionArgs {
  if (raw === undefined || raw === null) {
    return { minCandidateNodesPercentage: DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, minCandidateNodesAbsolute: DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE };
  }
  if (!isPlainObject(raw)) throw new Error(`DefaultPreemptionArgs: want an object, got ${JSON.stringify(raw)}`);
  for (const key of Object.keys(raw)) if (!KNOWN_FIELDS.has(key)) throw new Error(`DefaultPreemptionArgs: unknown field ${JSON.stringify(key)}`);
  const args: DefaultPreemptionArgs = {
    minCandidateNodesPercentage: integerField(raw, 'minCandidateNodesPercentage', DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE),
    minCandidateNodesAbsolute: integerField(raw, 'minCandidateNodesAbsolute', DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE),
  };
  const errors = validateDefaultPreemptionArgs(args);
  if (errors.length > 0) throw new Error(formatFieldErrors(errors));
  return args;
}

/** How many candidates the dry run looks for among `numNodes` potential nodes (upstream's calculateNumCandidates). */
export function calculateNumCandidates(args: DefaultPreemptionArgs, numNodes: number): number {
  const n = Math.max(Math.floor((numNodes * args.minCandidateNodesPercentage) / 100), args.minCandidateNodesAbsolute);
  return Math.min(n, numNodes);
}
