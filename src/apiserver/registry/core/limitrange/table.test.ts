import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOW, assertColumns } from '../../printing/testing/table-assertions.js';
import { limitRangeTable } from './table.js';

describe('limitRangeTable', () => {
  it('has the default columns', () => {
    assertColumns(limitRangeTable, [
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ]);
  });

  it('prints the name and creation time', () => {
    const lr = { metadata: { name: 'limits', creationTimestamp: '2024-05-30T08:00:00Z' }, spec: { limits: [] } };
    assert.deepEqual(limitRangeTable.cells(lr, NOW), ['limits', '2024-05-30T08:00:00Z']);
  });
});
