import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFieldErrors } from '../../../machinery/field-errors.js';
import { defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding } from './policy-defaults.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './policy-types.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from './policy-validation.js';

const texts = (errs: Parameters<typeof formatFieldErrors>[0]): string[] => errs.map((e) => formatFieldErrors([e]));
const policy = (spec: NonNullable<ValidatingAdmissionPolicy['spec']>): ValidatingAdmissionPolicy => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec });
const binding = (spec: NonNullable<ValidatingAdmissionPolicyBinding['spec']>): ValidatingAdmissionPolicyBinding => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'b' },
  spec,
});
const rules = [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }];

describe('ValidatingAdmissionPolicy', () => {
  it('defaults failurePolicy and match resources', () => {
    const p = policy({ matchConstraints: { resourceRules: [{ ...rules[0]! }] }, validations: [{ expression: 'object.spec.replicas <= 5' }] });
    defaultValidatingAdmissionPolicy(p);
    assert.equal(p.spec!.failurePolicy, 'Fail');
    assert.deepEqual(p.spec!.matchConstraints, { resourceRules: [{ ...rules[0]!, scope: '*' }], namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent' });
    assert.deepEqual(validateValidatingAdmissionPolicy(p), []);
  });

  it('requires match constraints with rules, and validations or audit annotations', () => {
    assert.deepEqual(texts(validateValidatingAdmissionPolicy(policy({}))), [
      'spec.matchConstraints: Required value',
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    assert.deepEqual(texts(validateValidatingAdmissionPolicy(policy({ matchConstraints: {}, validations: [{ expression: ' ' }], failurePolicy: 'Maybe' }))), [
      'spec.matchConstraints.resourceRules: Required value',
      'spec.validations[0].expression: Required value',
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
    ]);
  });
});

describe('ValidatingAdmissionPolicyBinding', () => {
  it('accepts a binding and defaults its match resources', () => {
    const b = binding({ policyName: 'p', validationActions: ['Deny'], matchResources: {} });
    defaultValidatingAdmissionPolicyBinding(b);
    assert.deepEqual(b.spec!.matchResources, { namespaceSelector: {}, objectSelector: {}, matchPolicy: 'Equivalent' });
    assert.deepEqual(validateValidatingAdmissionPolicyBinding(b), []);
  });

  it('checks the policy name, actions and param reference', () => {
    assert.deepEqual(texts(validateValidatingAdmissionPolicyBinding(binding({}))), [
      'spec.policyName: Required value',
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
    assert.deepEqual(texts(validateValidatingAdmissionPolicyBinding(binding({ policyName: 'p', validationActions: ['Deny', 'Warn', 'Log'], paramRef: { name: 'x' } }))), [
      'spec.paramRef.parameterNotFoundAction: Required value',
      'spec.validationActions[2]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
      'spec.validationActions: Invalid value: [Deny Warn Log]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
  });
});
