/**
 * Validation of ValidatingAdmissionPolicy and its binding with upstream's
 * messages, for the structure (CEL expressions are not compiled here: k8ts
 * has no CEL evaluator yet, so only their presence is checked).
 */
import { duplicate, FieldPath, invalid, notSupported, required, RawValue, type FieldError } from '../../../machinery/field-errors.js';
import { validateLabelSelector } from '../../../machinery/validation/labels.js';
import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './policy-types.js';
import { validateRuleWithOperations } from './validation.js';

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const NOT_FOUND_ACTIONS = ['Allow', 'Deny'];
const SPEC = FieldPath.root('spec');

const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

function validateMatchResources(match: MatchResources, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateLabelSelector(match.namespaceSelector, {}, path.child('namespaceSelector')));
  errs.push(...validateLabelSelector(match.objectSelector, {}, path.child('objectSelector')));
  if (isSet(match.matchPolicy) && !MATCH_POLICIES.includes(match.matchPolicy)) errs.push(notSupported(path.child('matchPolicy'), match.matchPolicy, MATCH_POLICIES));
  (match.resourceRules ?? []).forEach((r, i) => errs.push(...validateRuleWithOperations(r, path.child('resourceRules').index(i))));
  (match.excludeResourceRules ?? []).forEach((r, i) => errs.push(...validateRuleWithOperations(r, path.child('excludeResourceRules').index(i))));
  return errs;
}

export function validateValidatingAdmissionPolicy(policy: ValidatingAdmissionPolicy): FieldError[] {
  const spec = policy.spec ?? {};
  const errs: FieldError[] = [];
  if (isSet(spec.paramKind)) {
    if (!isSet(spec.paramKind.apiVersion) || spec.paramKind.apiVersion === '') errs.push(required(SPEC.child('paramKind', 'apiVersion'), ''));
    if (!isSet(spec.paramKind.kind) || spec.paramKind.kind === '') errs.push(required(SPEC.child('paramKind', 'kind'), ''));
  }
  const match = spec.matchConstraints;
  if (!isSet(match)) errs.push(required(SPEC.child('matchConstraints'), ''));
  else {
    errs.push(...validateMatchResources(match, SPEC.child('matchConstraints')));
    if ((match.resourceRules ?? []).length === 0) errs.push(required(SPEC.child('matchConstraints', 'resourceRules'), ''));
  }
  const validations = spec.validations ?? [];
  const audits = spec.auditAnnotations ?? [];
  if (validations.length === 0 && audits.length === 0) errs.push(required(SPEC.child('validations'), 'validations or auditAnnotations must contain at least one item'));
  validations.forEach((v, i) => {
    if (!isSet(v.expression) || v.expression.trim() === '') errs.push(required(SPEC.child('validations').index(i).child('expression'), ''));
  });
  audits.forEach((a, i) => {
    if (!isSet(a.valueExpression) || a.valueExpression.trim() === '') errs.push(required(SPEC.child('auditAnnotations').index(i).child('valueExpression'), ''));
  });
  if (isSet(spec.failurePolicy) && !FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(notSupported(SPEC.child('failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  return errs;
}

export function validateValidatingAdmissionPolicyBinding(binding: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec = binding.spec ?? {};
  const errs: FieldError[] = [];
  if (!isSet(spec.policyName) || spec.policyName === '') errs.push(required(SPEC.child('policyName'), ''));
  const ref = spec.paramRef;
  if (isSet(ref)) {
    const path = SPEC.child('paramRef');
    const hasName = isSet(ref.name) && ref.name !== '';
    if (hasName && isSet(ref.selector)) errs.push(invalid(path.child('name'), ref.name, 'name and selector are mutually exclusive'));
    if (!hasName && !isSet(ref.selector)) errs.push(required(path, 'one of name or selector must be set'));
    const action = ref.parameterNotFoundAction;
    if (!isSet(action) || action === '') errs.push(required(path.child('parameterNotFoundAction'), ''));
    else if (!NOT_FOUND_ACTIONS.includes(action)) errs.push(notSupported(path.child('parameterNotFoundAction'), action, NOT_FOUND_ACTIONS));
  }
  if (isSet(spec.matchResources)) errs.push(...validateMatchResources(spec.matchResources, SPEC.child('matchResources')));
  const actions = spec.validationActions ?? [];
  const actionsPath = SPEC.child('validationActions');
  if (actions.length === 0) errs.push(required(actionsPath, 'at least one validation action is required'));
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (seen.has(a)) errs.push(duplicate(actionsPath.index(i), a));
    seen.add(a);
    if (!ACTIONS.includes(a)) errs.push(notSupported(actionsPath.index(i), a, ACTIONS));
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      invalid(actionsPath, new RawValue(`[${actions.join(' ')}]`), 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'),
    );
  }
  return errs;
}
