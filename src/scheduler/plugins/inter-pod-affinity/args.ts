/**
 * InterPodAffinityArgs (kubescheduler.config.k8s.io/v1), defaulted and
 * validated as upstream: hardPodAffinityWeight defaults to 1 and must lie in
 * [0, 100]; ignorePreferredTermsOfExistingPods defaults to false.
 */
import { formatFieldErrors, invalid, type FieldError } from '../../../machinery/field-errors.js';

export interface InterPodAffinityArgs {
  /** Score weight of an existing pod's required affinity term that the incoming pod matches. */
  readonly hardPodAffinityWeight: number;
  /** Skip scoring existing pods' preferred terms when the incoming pod has no preferred terms of its own. */
  readonly ignorePreferredTermsOfExistingPods: boolean;
}

export const ARGS_KIND = 'InterPodAffinityArgs';
const MIN_HARD_POD_AFFINITY_WEIGHT = 0;
const MAX_HARD_POD_AFFINITY_WEIGHT = 100;
const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods']);

/** Defaults and validates raw args (undefined means all defaults); throws an Error with upstream's message for bad args. */
export function parseInterPodAffinityArgs(raw: unknown): InterPodAffinityArgs {
  if (raw === undefined || raw === null) return { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`want args to be of type ${ARGS_KIND}, got ${Array.isArray(raw) ? 'array' : typeof raw}`);
  const object = raw as Record<string, unknown>;
  if (object.kind !== undefined && object.kind !== ARGS_KIND) throw new Error(`want args to be of type ${ARGS_KIND}, got ${String(object.kind)}`);
  for (const key of Object.keys(object)) {
    if (!KNOWN_FIELDS.has(key)) throw new Error(`decoding ${ARGS_KIND}: strict decoding error: unknown field "${key}"`);
  }
  const weight = object.hardPodAffinityWeight ?? 1;
  if (typeof weight !== 'number' || !Number.isInteger(weight)) {
    throw new Error(`decoding ${ARGS_KIND}: hardPodAffinityWeight: must be an integer, got ${JSON.stringify(weight)}`);
  }
  const ignore = object.ignorePreferredTermsOfExistingPods ?? false;
  if (typeof ignore !== 'boolean') {
    throw new Error(`decoding ${ARGS_KIND}: ignorePreferredTermsOfExistingPods: must be a boolean, got ${JSON.stringify(ignore)}`);
  }
  const errors: FieldError[] = [];
  if (weight < MIN_HARD_POD_AFFINITY_WEIGHT || weight > MAX_HARD_POD_AFFINITY_WEIGHT) {
    errors.push(invalid('hardPodAffinityWeight', weight, `not in valid range [${MIN_HARD_POD_AFFINITY_WEIGHT}-${MAX_HARD_POD_AFFINITY_WEIGHT}]`));
  }
  if (errors.length > 0) throw new Error(formatFieldErrors(errors));
  return { hardPodAffinityWeight: weight, ignorePreferredTermsOfExistingPods: ignore };
}
