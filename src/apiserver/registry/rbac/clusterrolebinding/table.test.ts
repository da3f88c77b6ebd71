import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { clusterRoleBindingTable } from './table.js';

describe('clusterRoleBindingTable', () => {
  it('has upstream columns', () => {
    assertColumns(clusterRoleBindingTable, [
      ['Name', 'string', 'name', 0],
      ['Role', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Users', 'string', '', 1],
      ['Groups', 'string', '', 1],
      ['ServiceAccounts', 'string', '', 1],
    ]);
  });

  it('prints the cluster role and the subjects', () => {
    const crb: ClusterRoleBinding = {
      metadata: { name: 'cluster-admin', creationTimestamp: ago(100 * D) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [
        { kind: 'Group', name: 'system:masters', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'Group', name: 'admins', apiGroup: 'rbac.authorization.k8s.io' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' },
      ],
    };
    assert.deepEqual(clusterRoleBindingTable.cells(crb, NOW), [
      'cluster-admin', 'ClusterRole/cluster-admin', '100d', '', 'system:masters, admins', 'kube-system/default',
    ]);
  });
});
