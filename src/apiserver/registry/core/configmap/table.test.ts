import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { configMapTable } from './table.js';

describe('configMapTable', () => {
  it('has upstream columns', () => {
    assertColumns(configMapTable, [
      ['Name', 'string', 'name', 0],
      ['Data', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('counts data and binaryData keys', () => {
    const cm = { metadata: { name: 'cfg', creationTimestamp: ago(3 * D) }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } };
    assert.deepEqual(configMapTable.cells(cm, NOW), ['cfg', 3, '3d']);
  });

  it('prints 0 for an empty config map', () => {
    assert.deepEqual(configMapTable.cells({ metadata: { name: 'empty', creationTimestamp: ago(0) } }, NOW), ['empty', 0, '0s']);
  });
});
