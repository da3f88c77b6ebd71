import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOW, assertColumns } from '../../printing/testing/table-assertions.js';
import { clusterRoleTable } from './table.js';

describe('clusterRoleTable', () => {
  it('has the default columns', () => {
    assertColumns(clusterRoleTable, [
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ]);
  });

  it('prints the name and creation time', () => {
    const role = { metadata: { name: 'cluster-admin', creationTimestamp: '2024-01-02T03:04:05Z' } };
    assert.deepEqual(clusterRoleTable.cells(role, NOW), ['cluster-admin', '2024-01-02T03:04:05Z']);
  });
});
