import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { M, NOW, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { deploymentTable } from './table.js';

function deployment(overrides: Partial<Deployment> = {}): Deployment {
  return {
    metadata: { name: 'web', namespace: 'default', creationTimestamp: ago(7 * M + 3 * 1000) },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'envoy:v1' }] },
      },
    },
    status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    ...overrides,
  };
}

describe('deploymentTable', () => {
  it('has upstream columns', () => {
    assertColumns(deploymentTable, [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Up-to-date', 'string', '', 0],
      ['Available', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('prints READY x/y, UP-TO-DATE, AVAILABLE and the wide cells', () => {
    assert.deepEqual(deploymentTable.cells(deployment(), NOW), [
      'web', '2/3', 3, 2, '7m3s', 'nginx,sidecar', 'nginx:1.27,envoy:v1', 'app=web',
    ]);
  });

  it('prints zeros for a new deployment without status', () => {
    const d = deployment();
    delete d.status;
    assert.deepEqual(deploymentTable.cells(d, NOW).slice(1, 4), ['0/3', 0, 0]);
  });

  it('prints 0/0 when scaled to zero and defaults unset replicas to 1', () => {
    assert.equal(cellsByName(deploymentTable, deployment({ spec: { ...deployment().spec!, replicas: 0 }, status: {} }))['Ready'], '0/0');
    const { replicas: _, ...spec } = deployment().spec!;
    assert.equal(cellsByName(deploymentTable, deployment({ spec, status: {} }))['Ready'], '0/1');
  });

  it('prints selectors with expressions, an empty selector as nothing, an invalid one as <invalid>', () => {
    const base = deployment().spec!;
    const withExpr = deployment({
      spec: { ...base, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] } },
    });
    assert.equal(cellsByName(deploymentTable, withExpr)['Selector'], 'app=web,env in (dev,prod)');
    assert.equal(cellsByName(deploymentTable, deployment({ spec: { ...base, selector: {} } }))['Selector'], '');
    const bad = deployment({ spec: { ...base, selector: { matchExpressions: [{ key: 'env', operator: 'Near' }] } } });
    assert.equal(cellsByName(deploymentTable, bad)['Selector'], '<invalid>');
  });
});
