/**
 * Lease validation, as upstream's ValidateLeaseSpec: a lease duration, when
 * given, is positive, and the transition count is never negative. (strategy
 * and preferredHolder belong to the CoordinatedLeaderElection feature, off by
 * default in 1.33, and are not checked here.)
 */
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { FieldPath, invalid, type FieldError } from '../../../machinery/field-errors.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation/messages.js';

export function validateLease(lease: Lease): FieldError[] {
  const errs: FieldError[] = [];
  const spec = FieldPath.root('spec');
  const duration = lease.spec?.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) errs.push(invalid(spec.child('leaseDurationSeconds'), duration, 'must be greater than 0'));
  const transitions = lease.spec?.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) errs.push(invalid(spec.child('leaseTransitions'), transitions, IS_NEGATIVE_ERROR_MSG));
  return errs;
}

export function validateLeaseUpdate(lease: Lease): FieldError[] {
  return validateLease(lease);
}
