import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { H, M, NOW, S, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { jobTable } from './table.js';

function job(overrides: Partial<Job> = {}): Job {
  return {
    metadata: { name: 'pi', namespace: 'default', creationTimestamp: ago(10 * M) },
    spec: {
      completions: 3,
      parallelism: 1,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'abc' } },
      template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never' } },
    },
    status: { startTime: ago(9 * M), succeeded: 1, active: 1 },
    ...overrides,
  };
}

describe('jobTable', () => {
  it('has upstream columns', () => {
    assertColumns(jobTable, [
      ['Name', 'string', 'name', 0],
      ['Status', 'string', '', 0],
      ['Completions', 'string', '', 0],
      ['Duration', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('prints a running job, its duration so far and the wide cells', () => {
    assert.deepEqual(jobTable.cells(job(), NOW), [
      'pi', 'Running', '1/3', '9m', '10m', 'pi', 'perl:5.34', 'batch.kubernetes.io/controller-uid=abc',
    ]);
  });

  it('prints a completed job with the time it took', () => {
    const done = job({
      status: {
        startTime: ago(H),
        completionTime: ago(H - 45 * S),
        succeeded: 3,
        conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }],
      },
    });
    const c = cellsByName(jobTable, done);
    assert.equal(c['Status'], 'Complete');
    assert.equal(c['Completions'], '3/3');
    assert.equal(c['Duration'], '45s');
  });

  it('prints Failed, Suspended, FailureTarget and Terminating in upstream order', () => {
    const withConditions = (...types: string[]) =>
      job({ status: { conditions: types.map((type) => ({ type, status: 'True' })) } });
    assert.equal(cellsByName(jobTable, withConditions('FailureTarget', 'Failed'))['Status'], 'Failed');
    assert.equal(cellsByName(jobTable, withConditions('Suspended'))['Status'], 'Suspended');
    assert.equal(cellsByName(jobTable, withConditions('FailureTarget'))['Status'], 'FailureTarget');
    const deleting = job({ metadata: { name: 'pi', creationTimestamp: ago(M), deletionTimestamp: ago(0) }, status: { conditions: [{ type: 'Suspended', status: 'True' }] } });
    assert.equal(cellsByName(jobTable, deleting)['Status'], 'Terminating');
    const notYet = job({ status: { conditions: [{ type: 'Complete', status: 'False' }] } });
    assert.equal(cellsByName(jobTable, notYet)['Status'], 'Running');
  });

  it('prints work-queue completions and no duration before the job starts', () => {
    const base = job().spec!;
    const { completions: _, ...queue } = base;
    const c = cellsByName(jobTable, job({ spec: { ...queue, parallelism: 4 }, status: {} }));
    assert.equal(c['Completions'], '0/1 of 4');
    assert.equal(c['Duration'], '');
    const single = cellsByName(jobTable, job({ spec: { ...queue, parallelism: 1 }, status: { succeeded: 1 } }));
    assert.equal(single['Completions'], '1/1');
  });
});
