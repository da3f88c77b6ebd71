import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { formatFieldError } from '../../../machinery/field-errors.js';
import { validatePriorityClass, validatePriorityClassUpdate } from './validation.js';

const pc = (name: string, value: number, more: Partial<PriorityClass> = {}): PriorityClass => ({ metadata: { name }, value, ...more });
const messages = (errs: ReturnType<typeof validatePriorityClass>) => errs.map(formatFieldError);

describe('validatePriorityClass', () => {
  it('accepts user classes up to 1000000000 and the system classes with their values', () => {
    assert.deepEqual(messages(validatePriorityClass(pc('high', 1_000_000_000, { preemptionPolicy: 'Never' }))), []);
    assert.deepEqual(messages(validatePriorityClass(pc('system-node-critical', 2_000_001_000))), []);
    assert.deepEqual(messages(validatePriorityClass(pc('system-cluster-critical', 2_000_000_000))), []);
  });

  it('refuses a larger user value, an unknown or mis-valued system class, and an unknown preemption policy', () => {
    assert.deepEqual(messages(validatePriorityClass(pc('big', 2_000_000_000))), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
    assert.deepEqual(messages(validatePriorityClass(pc('system-x', 10))), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class",
    ]);
    assert.deepEqual(messages(validatePriorityClass(pc('system-node-critical', 5))), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
    ]);
    assert.deepEqual(messages(validatePriorityClass(pc('p', 1, { preemptionPolicy: 'Sometimes' }))), [
      'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
    ]);
  });

  it('keeps value and preemptionPolicy on update', () => {
    const old = pc('p', 1, { preemptionPolicy: 'Never' });
    assert.deepEqual(messages(validatePriorityClassUpdate(pc('p', 2, { preemptionPolicy: 'Never' }), old)), ['value: Forbidden: may not be changed in an update.']);
    assert.equal(messages(validatePriorityClassUpdate(pc('p', 1, { preemptionPolicy: 'PreemptLowerPriority' }), old))[0]?.startsWith('preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable'), true);
  });
});
