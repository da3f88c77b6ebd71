/**
 * PodDisruptionBudget validation, as upstream's ValidatePodDisruptionBudget:
 * minAvailable and maxUnavailable (at most one of them, each a non-negative
 * integer or a percentage of at most 100%), the selector, and the unhealthy
 * pod eviction policy. An update may keep a selector value that an older
 * server accepted.
 */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { FieldPath, invalid, notSupported, RawValue, type FieldError } from '../../../machinery/field-errors.js';
import { labelSelectorHasInvalidLabelValue, validateLabelSelector } from '../../../machinery/validation/labels.js';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from '../../../machinery/validation/values.js';

const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

function validateSpec(pdb: PodDisruptionBudget, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const spec = pdb.spec ?? {};
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    // Upstream prints the Go struct (%#v), pointers and all; this keeps its shape.
    errs.push(invalid(path, new RawValue('policy.PodDisruptionBudgetSpec{...}'), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const name of ['minAvailable', 'maxUnavailable'] as const) {
    const value = spec[name];
    if (value === undefined) continue;
    errs.push(...validatePositiveIntOrPercent(value, path.child(name)), ...isNotMoreThan100Percent(value, path.child(name)));
  }
  errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector }, path.child('selector')));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy)) {
    errs.push(notSupported(path.child('unhealthyPodEvictionPolicy'), policy, UNHEALTHY_POD_EVICTION_POLICIES));
  }
  return errs;
}

export function validatePodDisruptionBudget(pdb: PodDisruptionBudget): FieldError[] {
  return validateSpec(pdb, false);
}

export function validatePodDisruptionBudgetUpdate(pdb: PodDisruptionBudget, old: PodDisruptionBudget): FieldError[] {
  return validateSpec(pdb, labelSelectorHasInvalidLabelValue(old.spec?.selector));
}
