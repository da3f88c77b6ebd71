import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { statefulSetTable } from './table.js';

describe('statefulSetTable', () => {
  it('has upstream columns', () => {
    assertColumns(statefulSetTable, [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
    ]);
  });

  it('prints READY as ready/desired', () => {
    const sts: StatefulSet = {
      metadata: { name: 'db', creationTimestamp: ago(D) },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { spec: { containers: [{ name: 'postgres', image: 'postgres:16' }] } },
      },
      status: { replicas: 3, readyReplicas: 2 },
    };
    assert.deepEqual(statefulSetTable.cells(sts, NOW), ['db', '2/3', '24h', 'postgres', 'postgres:16']);
  });

  it('prints 0/1 for a new one without status or replicas', () => {
    const sts: StatefulSet = {
      metadata: { name: 'db', creationTimestamp: ago(0) },
      spec: { serviceName: 'db', selector: {}, template: {} },
    };
    assert.deepEqual(statefulSetTable.cells(sts, NOW), ['db', '0/1', '0s', '', '']);
  });
});
