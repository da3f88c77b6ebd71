import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import { D, M, NOW, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { cronJobTable } from './table.js';

function cronJob(overrides: Partial<CronJob> = {}): CronJob {
  return {
    metadata: { name: 'backup', creationTimestamp: ago(3 * D) },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'dump', image: 'pg:16' }] } } } },
    },
    ...overrides,
  };
}

describe('cronJobTable', () => {
  it('has upstream columns', () => {
    assertColumns(cronJobTable, [
      ['Name', 'string', 'name', 0],
      ['Schedule', 'string', '', 0],
      ['Timezone', 'string', '', 0],
      ['Suspend', 'boolean', '', 0],
      ['Active', 'integer', '', 0],
      ['Last Schedule', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('prints a cron job that has never run', () => {
    assert.deepEqual(cronJobTable.cells(cronJob(), NOW), [
      'backup', '*/5 * * * *', '<none>', 'False', 0, '<none>', '3d', 'dump', 'pg:16', '<none>',
    ]);
  });

  it('prints the time zone, suspension, active jobs and last schedule', () => {
    const c = cellsByName(
      cronJobTable,
      cronJob({
        spec: { ...cronJob().spec!, timeZone: 'Europe/Paris', suspend: true },
        status: { active: [{ name: 'backup-1' }, { name: 'backup-2' }], lastScheduleTime: ago(4 * M) },
      }),
    );
    assert.equal(c['Timezone'], 'Europe/Paris');
    assert.equal(c['Suspend'], 'True');
    assert.equal(c['Active'], 2);
    assert.equal(c['Last Schedule'], '4m');
  });
});
