import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { formatFieldError } from '../../../machinery/field-errors.js';
import { validateLease, validateLeaseUpdate } from './validation.js';

const lease = (spec: Lease['spec']): Lease => ({ metadata: { name: 'l' }, ...(spec !== undefined ? { spec } : {}) });

describe('validateLease', () => {
  it('accepts a lease as leader election writes it, and an empty one', () => {
    assert.deepEqual(validateLease(lease({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0, renewTime: '2026-01-01T00:00:00.000000Z' })), []);
    assert.deepEqual(validateLease(lease(undefined)), []);
  });

  it('refuses a duration that is not positive and a negative transition count, on create and update', () => {
    const bad = lease({ leaseDurationSeconds: 0, leaseTransitions: -1 });
    const expected = ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0', 'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0'];
    assert.deepEqual(validateLease(bad).map(formatFieldError), expected);
    assert.deepEqual(validateLeaseUpdate(bad).map(formatFieldError), expected);
  });
});
