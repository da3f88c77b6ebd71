import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { formatFieldError } from '../../../machinery/field-errors.js';
import { validateResourceQuota, validateResourceQuotaUpdate } from './resource-quota-validation.js';

const quota = (hard: Record<string, string>, scopes?: string[]): ResourceQuota => ({ metadata: { name: 'q' }, spec: { hard, ...(scopes !== undefined ? { scopes } : {}) } });
const messages = (errs: ReturnType<typeof validateResourceQuota>) => errs.map(formatFieldError);

describe('validateResourceQuota', () => {
  it('accepts standard, object-count and hugepages resources', () => {
    assert.deepEqual(messages(validateResourceQuota(quota({ pods: '10', 'requests.cpu': '4', 'count/deployments.apps': '2', 'hugepages-2Mi': '1Gi', 'example.com/gpu': '1' }))), []);
    assert.deepEqual(messages(validateResourceQuota(quota({ pods: '1', cpu: '1' }, ['NotTerminating', 'PriorityClass']))), []);
  });

  it('refuses an unknown resource name and a negative quantity', () => {
    assert.deepEqual(messages(validateResourceQuota(quota({ bogus: '1' }))), [
      'spec.hard[bogus]: Invalid value: "bogus": must be a standard resource type or fully qualified',
      'spec.hard[bogus]: Invalid value: "bogus": must be a standard resource for quota',
    ]);
    assert.deepEqual(messages(validateResourceQuota(quota({ storage: '1Gi' }))), ['spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota']);
    assert.deepEqual(messages(validateResourceQuota(quota({ pods: '-1' }))), ['spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0']);
  });

  it('refuses unknown, conflicting and ill-fitting scopes, and a change of scopes', () => {
    assert.deepEqual(messages(validateResourceQuota(quota({ pods: '1' }, ['Bogus']))), ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Bogus"}: unsupported scope']);
    assert.deepEqual(messages(validateResourceQuota(quota({ pods: '1' }, ['BestEffort', 'NotBestEffort']))), [
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
    ]);
    assert.deepEqual(messages(validateResourceQuota(quota({ secrets: '1' }, ['BestEffort']))), [
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource',
    ]);
    assert.deepEqual(messages(validateResourceQuotaUpdate(quota({ pods: '1' }, ['NotBestEffort']), quota({ pods: '1' }, ['BestEffort']))), [
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotBestEffort"}: field is immutable',
    ]);
  });
});
