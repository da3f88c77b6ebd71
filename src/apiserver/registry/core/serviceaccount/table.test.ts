import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { serviceAccountTable } from './table.js';

describe('serviceAccountTable', () => {
  it('has upstream columns', () => {
    assertColumns(serviceAccountTable, [
      ['Name', 'string', 'name', 0],
      ['Secrets', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('counts listed secrets', () => {
    assert.deepEqual(
      serviceAccountTable.cells({ metadata: { name: 'default', creationTimestamp: ago(5 * D) } }, NOW),
      ['default', 0, '5d'],
    );
    assert.deepEqual(
      serviceAccountTable.cells({ metadata: { name: 'bot', creationTimestamp: ago(5 * D) }, secrets: [{ name: 'bot-token' }] }, NOW),
      ['bot', 1, '5d'],
    );
  });
});
