import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { validatingAdmissionPolicyBindingTable, validatingAdmissionPolicyTable } from './table.js';

describe('validatingAdmissionPolicyTable', () => {
  it('has upstream columns and cells', () => {
    assertColumns(validatingAdmissionPolicyTable, [
      ['Name', 'string', 'name', 0],
      ['Validations', 'integer', '', 0],
      ['ParamKind', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
    const p = { metadata: { name: 'replicas', creationTimestamp: ago(D) }, spec: { validations: [{}], paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } };
    assert.deepEqual(validatingAdmissionPolicyTable.cells(p, NOW), ['replicas', 1, 'v1/ConfigMap', '24h']);
    assert.deepEqual(validatingAdmissionPolicyTable.cells({ metadata: { name: 'x', creationTimestamp: ago(D) }, spec: {} }, NOW), ['x', 0, '<unset>', '24h']);
  });
});

describe('validatingAdmissionPolicyBindingTable', () => {
  it('has upstream columns and cells', () => {
    assertColumns(validatingAdmissionPolicyBindingTable, [
      ['Name', 'string', 'name', 0],
      ['PolicyName', 'string', '', 0],
      ['ParamRef', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
    const b = (paramRef?: object) => ({ metadata: { name: 'b', creationTimestamp: ago(D) }, spec: { policyName: 'p', ...(paramRef !== undefined ? { paramRef } : {}) } });
    assert.deepEqual(validatingAdmissionPolicyBindingTable.cells(b(), NOW), ['b', 'p', '<unset>', '24h']);
    assert.deepEqual(validatingAdmissionPolicyBindingTable.cells(b({ name: 'limits', namespace: 'default' }), NOW), ['b', 'p', 'default/limits', '24h']);
    assert.deepEqual(validatingAdmissionPolicyBindingTable.cells(b({ name: 'limits' }), NOW), ['b', 'p', '*/limits', '24h']);
    assert.deepEqual(validatingAdmissionPolicyBindingTable.cells(b({ selector: { matchLabels: { env: 'prod' } } }), NOW), ['b', 'p', 'env=prod', '24h']);
  });
});
