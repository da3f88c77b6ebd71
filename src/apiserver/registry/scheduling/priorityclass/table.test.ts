import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { priorityClassTable } from './table.js';

describe('priorityClassTable', () => {
  it('has upstream columns', () => {
    assertColumns(priorityClassTable, [
      ['Name', 'string', 'name', 0],
      ['Value', 'integer', '', 0],
      ['Global-Default', 'boolean', '', 0],
      ['Age', 'string', '', 0],
      ['PreemptionPolicy', 'string', '', 0],
    ]);
  });

  it('prints value, default flag and preemption policy', () => {
    const pc = { metadata: { name: 'batch-low', creationTimestamp: ago(20 * D) }, value: 2000001000, preemptionPolicy: 'Never' };
    assert.deepEqual(priorityClassTable.cells(pc, NOW), ['batch-low', 2000001000, false, '20d', 'Never']);
    const def = { metadata: { name: 'low', creationTimestamp: ago(D) }, value: -10, globalDefault: true };
    assert.deepEqual(priorityClassTable.cells(def, NOW), ['low', -10, true, '24h', 'PreemptLowerPriority']);
  });
});
