import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOW, assertColumns } from '../../printing/testing/table-assertions.js';
import { roleTable } from './table.js';

describe('roleTable', () => {
  it('has the default columns', () => {
    assertColumns(roleTable, [
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ]);
  });

  it('prints the name and creation time', () => {
    const role = { metadata: { name: 'pod-reader', namespace: 'default', creationTimestamp: '2024-05-31T12:00:00Z' }, rules: [] };
    assert.deepEqual(roleTable.cells(role, NOW), ['pod-reader', '2024-05-31T12:00:00Z']);
  });
});
