import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { H, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { replicaSetTable } from './table.js';

describe('replicaSetTable', () => {
  it('has upstream columns', () => {
    assertColumns(replicaSetTable, [
      ['Name', 'string', 'name', 0],
      ['Desired', 'integer', '', 0],
      ['Current', 'integer', '', 0],
      ['Ready', 'integer', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('prints desired, current and ready counts', () => {
    const rs: ReplicaSet = {
      metadata: { name: 'web-5d9c7f', creationTimestamp: ago(3 * H + 5 * 60_000) },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d9c7f' } },
        template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
      },
      status: { replicas: 3, readyReplicas: 1 },
    };
    assert.deepEqual(replicaSetTable.cells(rs, NOW), ['web-5d9c7f', 3, 3, 1, '3h5m', 'nginx', 'nginx', 'app=web,pod-template-hash=5d9c7f']);
  });

  it('prints an old, scaled-down replica set', () => {
    const rs: ReplicaSet = {
      metadata: { name: 'web-old', creationTimestamp: ago(30 * 24 * H) },
      spec: { replicas: 0, selector: { matchLabels: { app: 'web' } } },
      status: { replicas: 0 },
    };
    assert.deepEqual(replicaSetTable.cells(rs, NOW), ['web-old', 0, 0, 0, '30d', '', '', 'app=web']);
  });
});
