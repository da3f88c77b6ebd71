import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { namespaceTable } from './table.js';

describe('namespaceTable', () => {
  it('has upstream columns', () => {
    assertColumns(namespaceTable, [
      ['Name', 'string', 'name', 0],
      ['Status', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints the phase', () => {
    const ns = { metadata: { name: 'default', creationTimestamp: ago(10 * D) }, status: { phase: 'Active' } };
    assert.deepEqual(namespaceTable.cells(ns, NOW), ['default', 'Active', '10d']);
    const gone = { metadata: { name: 'old', creationTimestamp: ago(D) }, status: { phase: 'Terminating' } };
    assert.deepEqual(namespaceTable.cells(gone, NOW), ['old', 'Terminating', '24h']);
  });

  it('prints Active when there is no phase, as defaulting would', () => {
    assert.deepEqual(namespaceTable.cells({ metadata: { name: 'x', creationTimestamp: ago(0) } }, NOW), ['x', 'Active', '0s']);
  });
});
