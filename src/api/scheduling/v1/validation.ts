/**
 * PriorityClass validation, as upstream's ValidatePriorityClass and
 * ValidatePriorityClassUpdate: `system-` names are reserved for the two
 * system classes (with their values), user classes stay at or below
 * 1000000000, and value and preemptionPolicy never change.
 */
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { FieldPath, forbidden, notSupported, required, type FieldError } from '../../../machinery/field-errors.js';
import { validateImmutableField } from '../../../machinery/validation/immutable.js';

export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;

/** The system classes the API server creates, with their values (neither is a global default). */
const SYSTEM_PRIORITY_CLASSES: ReadonlyMap<string, number> = new Map([
  ['system-node-critical', 2_000_001_000],
  ['system-cluster-critical', 2_000_000_000],
]);

/** Why a `system-` class is not one of the known ones, or undefined when it is. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.get(name);
  if (known === undefined) return `${name} is not a known system priority class`;
  if (known !== value) return `value of ${name} PriorityClass must be ${known}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errs: FieldError[] = [];
  const name = pc.metadata?.name ?? '';
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const why = systemClassError(name, pc.value ?? 0, pc.globalDefault ?? false);
    if (why !== undefined) {
      errs.push(forbidden(FieldPath.root('metadata').child('name'), `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${why}`));
    }
  } else if ((pc.value ?? 0) > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(forbidden(FieldPath.root('value'), `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (pc.preemptionPolicy !== undefined && pc.preemptionPolicy !== null) {
    const path = FieldPath.root('preemptionPolicy');
    if (pc.preemptionPolicy === '') errs.push(required(path));
    else if (pc.preemptionPolicy !== 'PreemptLowerPriority' && pc.preemptionPolicy !== 'Never') {
      errs.push(notSupported(path, pc.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
    }
  }
  return errs;
}

export function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): FieldError[] {
  const errs: FieldError[] = [];
  if ((pc.value ?? 0) !== (old.value ?? 0)) errs.push(forbidden(FieldPath.root('value'), 'may not be changed in an update.'));
  errs.push(...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, FieldPath.root('preemptionPolicy')));
  return errs;
}
