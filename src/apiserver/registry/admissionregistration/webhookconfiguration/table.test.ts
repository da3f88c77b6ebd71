import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { webhookConfigurationTable } from './table.js';

describe('webhookConfigurationTable', () => {
  it('has upstream columns', () => {
    assertColumns(webhookConfigurationTable, [
      ['Name', 'string', 'name', 0],
      ['Webhooks', 'integer', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('counts the webhooks', () => {
    const c = { metadata: { name: 'deny', creationTimestamp: ago(2 * D) }, webhooks: [{}, {}] };
    assert.deepEqual(webhookConfigurationTable.cells(c, NOW), ['deny', 2, '2d']);
    assert.deepEqual(webhookConfigurationTable.cells({ metadata: { name: 'none', creationTimestamp: ago(2 * D) } }, NOW), ['none', 0, '2d']);
  });
});
