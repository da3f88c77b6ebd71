import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { networkPolicyTable } from './table.js';

describe('networkPolicyTable', () => {
  it('has upstream columns', () => {
    assertColumns(networkPolicyTable, [
      ['Name', 'string', 'name', 0],
      ['Pod-Selector', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints the pod selector, <none> when it selects every pod', () => {
    const meta = { name: 'deny', creationTimestamp: ago(D) };
    assert.deepEqual(networkPolicyTable.cells({ metadata: meta, spec: { podSelector: {} } }, NOW), ['deny', '<none>', '24h']);
    assert.deepEqual(
      networkPolicyTable.cells({ metadata: meta, spec: { podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] } } }, NOW),
      ['deny', 'app=web,tier in (a,b)', '24h'],
    );
  });
});
