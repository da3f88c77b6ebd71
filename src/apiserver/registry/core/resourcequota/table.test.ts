import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { H, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { resourceQuotaTable } from './table.js';

describe('resourceQuotaTable', () => {
  it('has upstream columns', () => {
    assertColumns(resourceQuotaTable, [
      ['Name', 'string', 'name', 0],
      ['Request', 'string', '', 0],
      ['Limit', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('splits limits.* from the rest and sorts by resource', () => {
    const quota = {
      metadata: { name: 'compute', creationTimestamp: ago(2 * H) },
      status: {
        hard: { pods: '10', 'requests.cpu': '2', 'limits.memory': '2Gi', 'limits.cpu': '4', 'requests.memory': '1Gi' },
        used: { pods: '3', 'requests.cpu': '500m', 'limits.cpu': '1000m', 'requests.memory': '1024Mi' },
      },
    };
    assert.deepEqual(resourceQuotaTable.cells(quota, NOW), [
      'compute',
      'pods: 3/10, requests.cpu: 500m/2, requests.memory: 1Gi/1Gi',
      'limits.cpu: 1/4, limits.memory: 0/2Gi',
      '120m',
    ]);
  });

  it('prints empty cells before the quota controller has filled in status', () => {
    const quota = { metadata: { name: 'q', creationTimestamp: ago(0) }, spec: { hard: { pods: '1' } } };
    assert.deepEqual(resourceQuotaTable.cells(quota, NOW), ['q', '', '', '0s']);
  });
});
