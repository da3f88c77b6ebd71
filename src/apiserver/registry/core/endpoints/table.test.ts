import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Endpoints } from 'kubernetes-types/core/v1.js';
import { M, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { endpointsTable } from './table.js';

const meta = { name: 'web', namespace: 'default', creationTimestamp: ago(5 * M) };

describe('endpointsTable', () => {
  it('has upstream columns', () => {
    assertColumns(endpointsTable, [
      ['Name', 'string', 'name', 0],
      ['Endpoints', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints <none> without subsets', () => {
    assert.deepEqual(endpointsTable.cells({ metadata: meta }, NOW), ['web', '<none>', '5m']);
  });

  it('prints ip:port pairs for every port', () => {
    const ep: Endpoints = {
      metadata: meta,
      subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { port: 443, name: 'https' }] }],
    };
    assert.equal(endpointsTable.cells(ep, NOW)[1], '10.0.0.1:80,10.0.0.1:443');
  });

  it('truncates after three and counts the rest', () => {
    const ep: Endpoints = {
      metadata: meta,
      subsets: [
        { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }], ports: [{ port: 8080 }] },
        { addresses: [{ ip: '10.0.1.1' }], ports: [{ port: 8080 }] },
      ],
    };
    assert.equal(endpointsTable.cells(ep, NOW)[1], '10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 2 more...');
  });

  it('lists bare IPs for a headless service without ports, and brackets IPv6', () => {
    const headless: Endpoints = { metadata: meta, subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] }] };
    assert.equal(endpointsTable.cells(headless, NOW)[1], '10.0.0.1,10.0.0.2');
    const v6: Endpoints = { metadata: meta, subsets: [{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }] };
    assert.equal(endpointsTable.cells(v6, NOW)[1], '[fd00::1]:80');
  });

  it('ignores not-ready addresses and prints nothing when none are ready', () => {
    const ep: Endpoints = { metadata: meta, subsets: [{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] };
    assert.equal(endpointsTable.cells(ep, NOW)[1], '');
  });
});
