import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { secretTable } from './table.js';

describe('secretTable', () => {
  it('has upstream columns', () => {
    assertColumns(secretTable, [
      ['Name', 'string', 'name', 0],
      ['Type', 'string', '', 0],
      ['Data', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints the type and the number of data keys', () => {
    const s = {
      metadata: { name: 'tls', creationTimestamp: ago(D) },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'a2V5' },
    };
    assert.deepEqual(secretTable.cells(s, NOW), ['tls', 'kubernetes.io/tls', 2, '24h']);
  });

  it('prints an untyped, empty secret as Opaque with 0 keys', () => {
    assert.deepEqual(secretTable.cells({ metadata: { name: 'x', creationTimestamp: ago(0) } }, NOW), ['x', 'Opaque', 0, '0s']);
  });
});
