import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTable, rfc3339 } from './default-table.js';
import { NOW, assertColumns } from './testing/table-assertions.js';

describe('defaultTable', () => {
  it('has NAME and CREATED AT', () => {
    assertColumns(defaultTable, [
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ]);
  });

  it('prints the name and the creation time in UTC, RFC 3339', () => {
    assert.deepEqual(
      defaultTable.cells({ metadata: { name: 'admin', creationTimestamp: '2024-05-01T10:20:30+02:00' } }, NOW),
      ['admin', '2024-05-01T08:20:30Z'],
    );
  });

  it('prints Go zero time without a creation timestamp', () => {
    assert.deepEqual(defaultTable.cells({ metadata: { name: 'x' } }, NOW), ['x', '0001-01-01T00:00:00Z']);
  });

  it('drops sub-second digits', () => {
    assert.equal(rfc3339('2024-05-01T08:20:30.999Z'), '2024-05-01T08:20:30Z');
  });
});
