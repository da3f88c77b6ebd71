import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { ingressClassTable } from './table.js';

describe('ingressClassTable', () => {
  it('has upstream columns', () => {
    assertColumns(ingressClassTable, [
      ['Name', 'string', 'name', 0],
      ['Controller', 'string', '', 0],
      ['Parameters', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints the controller and the parameters as Kind[.group]/name, or <none>', () => {
    const base = { metadata: { name: 'nginx', creationTimestamp: ago(D) } };
    assert.deepEqual(ingressClassTable.cells({ ...base, spec: { controller: 'k8s.io/ingress-nginx' } }, NOW), ['nginx', 'k8s.io/ingress-nginx', '<none>', '24h']);
    assert.deepEqual(ingressClassTable.cells({ ...base, spec: { controller: 'a.io/b', parameters: { kind: 'Params', name: 'p' } } }, NOW), ['nginx', 'a.io/b', 'Params/p', '24h']);
    assert.deepEqual(ingressClassTable.cells({ ...base, spec: { controller: 'a.io/b', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } } }, NOW), [
      'nginx',
      'a.io/b',
      'Params.k8s.example.com/p',
      '24h',
    ]);
  });
});
