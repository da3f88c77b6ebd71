import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { daemonSetTable } from './table.js';

describe('daemonSetTable', () => {
  it('has upstream columns', () => {
    assertColumns(daemonSetTable, [
      ['Name', 'string', 'name', 0],
      ['Desired', 'integer', '', 0],
      ['Current', 'integer', '', 0],
      ['Ready', 'integer', '', 0],
      ['Up-to-date', 'integer', '', 0],
      ['Available', 'integer', '', 0],
      ['Node Selector', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('prints the scheduling counts and the node selector', () => {
    const ds: DaemonSet = {
      metadata: { name: 'proxy', namespace: 'kube-system', creationTimestamp: ago(9 * D) },
      spec: {
        selector: { matchLabels: { k8s: 'proxy' } },
        template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'kube-proxy', image: 'k8ts' }] } },
      },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1, numberAvailable: 2, numberMisscheduled: 0 },
    };
    assert.deepEqual(daemonSetTable.cells(ds, NOW), ['proxy', 3, 3, 2, 1, 2, 'kubernetes.io/os=linux', '9d', 'kube-proxy', 'k8ts', 'k8s=proxy']);
  });

  it('prints <none> without a node selector, and zeros without status', () => {
    const ds: DaemonSet = {
      metadata: { name: 'agent', creationTimestamp: ago(0) },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { containers: [] } } },
    };
    assert.deepEqual(daemonSetTable.cells(ds, NOW), ['agent', 0, 0, 0, 0, 0, '<none>', '0s', '', '', 'app=agent']);
  });
});
