import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { formatFieldError } from '../../../machinery/field-errors.js';
import { validatePodDisruptionBudget, validatePodDisruptionBudgetUpdate } from './validation.js';

const pdb = (spec: NonNullable<PodDisruptionBudget['spec']>): PodDisruptionBudget => ({ metadata: { name: 'p' }, spec });
const messages = (errs: ReturnType<typeof validatePodDisruptionBudget>) => errs.map(formatFieldError);

describe('validatePodDisruptionBudget', () => {
  it('accepts a count or a percentage', () => {
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ minAvailable: 1, selector: { matchLabels: { app: 'x' } } }))), []);
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ maxUnavailable: '50%', unhealthyPodEvictionPolicy: 'AlwaysAllow' }))), []);
  });

  it('refuses a negative count, a bad or too large percentage, both fields, a bad selector and an unknown policy', () => {
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ maxUnavailable: '150%' }))), [
      // Upstream passes the IntOrString itself, which Go prints with %#v.
      'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    ]);
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ minAvailable: -1 }))), ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ minAvailable: 'half' }))), [
      `spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    ]);
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ minAvailable: 1, maxUnavailable: 1 }))), [
      'spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set',
    ]);
    assert.equal(messages(validatePodDisruptionBudget(pdb({ selector: { matchLabels: { 'bad key': 'x' } } })))[0]?.startsWith('spec.selector.matchLabels: Invalid value: "bad key"'), true);
    assert.deepEqual(messages(validatePodDisruptionBudget(pdb({ unhealthyPodEvictionPolicy: 'Never' as never }))), [
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]);
  });

  it('lets an update keep an invalid selector value the old object had', () => {
    const bad = pdb({ selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['not valid!'] }] } });
    assert.equal(validatePodDisruptionBudget(bad).length, 1);
    assert.deepEqual(validatePodDisruptionBudgetUpdate(bad, bad), []);
  });
});
