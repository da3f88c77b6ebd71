import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { H, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { controllerRevisionTable } from './table.js';

function revision(ownerReferences?: NonNullable<ControllerRevision['metadata']>['ownerReferences']): ControllerRevision {
  return {
    metadata: { name: 'proxy-7c9f', creationTimestamp: ago(H), ...(ownerReferences ? { ownerReferences } : {}) },
    revision: 2,
  };
}

describe('controllerRevisionTable', () => {
  it('has upstream columns', () => {
    assertColumns(controllerRevisionTable, [
      ['Name', 'string', 'name', 0],
      ['Controller', 'string', '', 0],
      ['Revision', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints the controller as kind.group/name', () => {
    const r = revision([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'not-controller', uid: 'u0' },
      { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'proxy', uid: 'u1', controller: true },
    ]);
    assert.deepEqual(controllerRevisionTable.cells(r, NOW), ['proxy-7c9f', 'daemonset.apps/proxy', 2, '60m']);
  });

  it('omits the group of a core owner, and prints <none> without a controller', () => {
    const core = revision([{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: true }]);
    assert.equal(controllerRevisionTable.cells(core, NOW)[1], 'pod/p');
    assert.equal(controllerRevisionTable.cells(revision(), NOW)[1], '<none>');
  });

  it('rejects a malformed owner apiVersion as upstream does', () => {
    const bad = revision([{ apiVersion: 'a/b/c', kind: 'X', name: 'x', uid: 'u', controller: true }]);
    assert.throws(() => controllerRevisionTable.cells(bad, NOW), /unexpected GroupVersion string: a\/b\/c/);
  });
});
