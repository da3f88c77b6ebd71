import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { leaseTable } from './table.js';

describe('leaseTable', () => {
  it('has upstream columns', () => {
    assertColumns(leaseTable, [
      ['Name', 'string', 'name', 0],
      ['Holder', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints the holder, or nothing when the lease is free', () => {
    const held = { metadata: { name: 'kube-scheduler', creationTimestamp: ago(2 * D) }, spec: { holderIdentity: 'host_1234' } };
    assert.deepEqual(leaseTable.cells(held, NOW), ['kube-scheduler', 'host_1234', '2d']);
    const free = { metadata: { name: 'node-1', creationTimestamp: ago(2 * D) }, spec: {} };
    assert.deepEqual(leaseTable.cells(free, NOW), ['node-1', '', '2d']);
  });
});
