import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { roleBindingTable } from './table.js';

describe('roleBindingTable', () => {
  it('has upstream columns', () => {
    assertColumns(roleBindingTable, [
      ['Name', 'string', 'name', 0],
      ['Role', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Users', 'string', '', 1],
      ['Groups', 'string', '', 1],
      ['ServiceAccounts', 'string', '', 1],
    ]);
  });

  it('prints the role and the subjects by kind', () => {
    const rb: RoleBinding = {
      metadata: { name: 'read-pods', namespace: 'default', creationTimestamp: ago(D) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [
        { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
        { kind: 'User', name: 'joe', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'Group', name: 'qa', apiGroup: 'rbac.authorization.k8s.io' },
      ],
    };
    assert.deepEqual(roleBindingTable.cells(rb, NOW), ['read-pods', 'Role/pod-reader', '24h', 'jane, joe', 'qa', 'build/ci']);
  });

  it('prints empty subject cells for a binding without subjects', () => {
    const rb: RoleBinding = {
      metadata: { name: 'empty', creationTimestamp: ago(D) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    };
    assert.deepEqual(roleBindingTable.cells(rb, NOW), ['empty', 'ClusterRole/view', '24h', '', '', '']);
  });
});
