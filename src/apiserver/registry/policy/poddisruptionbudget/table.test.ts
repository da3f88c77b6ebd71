import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { H, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { podDisruptionBudgetTable } from './table.js';

describe('podDisruptionBudgetTable', () => {
  it('has upstream columns', () => {
    assertColumns(podDisruptionBudgetTable, [
      ['Name', 'string', 'name', 0],
      ['Min Available', 'string', '', 0],
      ['Max Unavailable', 'string', '', 0],
      ['Allowed Disruptions', 'integer', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints numbers and percentages, N/A for the unset bound', () => {
    const min = {
      metadata: { name: 'web', creationTimestamp: ago(H) },
      spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } },
      status: { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 },
    };
    assert.deepEqual(podDisruptionBudgetTable.cells(min, NOW), ['web', '2', 'N/A', 1, '60m']);
    const max = { metadata: { name: 'db', creationTimestamp: ago(H) }, spec: { maxUnavailable: '25%' } };
    assert.deepEqual(podDisruptionBudgetTable.cells(max, NOW), ['db', 'N/A', '25%', 0, '60m']);
  });
});
