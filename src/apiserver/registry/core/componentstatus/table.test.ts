import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { componentStatusTable } from './table.js';

const cs = (name: string, conditions: object[]): KubeObject => ({ kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions });

describe('componentStatusTable', () => {
  it('has upstream’s columns', () => {
    assert.deepEqual(
      componentStatusTable.columns.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Status', 'string', '', 0],
        ['Message', 'string', '', 0],
        ['Error', 'string', '', 0],
      ],
    );
  });

  it('STATUS from the Healthy condition: Healthy, Unhealthy (False or Unknown), Unknown without one', () => {
    const now = new Date();
    assert.deepEqual(componentStatusTable.cells(cs('etcd-0', [{ type: 'Healthy', status: 'True', message: 'ok' }]), now), ['etcd-0', 'Healthy', 'ok', '']);
    assert.deepEqual(componentStatusTable.cells(cs('scheduler', [{ type: 'Healthy', status: 'False', message: 'refused' }]), now), ['scheduler', 'Unhealthy', 'refused', '']);
    assert.deepEqual(componentStatusTable.cells(cs('etcd-1', [{ type: 'Healthy', status: 'Unknown', error: 'x' }]), now), ['etcd-1', 'Unhealthy', '', 'x']);
    assert.deepEqual(componentStatusTable.cells(cs('other', []), now), ['other', 'Unknown', '', '']);
  });
});
