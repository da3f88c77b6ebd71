import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { M, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { endpointSliceTable } from './table.js';

const meta = { name: 'web-abc12', creationTimestamp: ago(5 * M) };

describe('endpointSliceTable', () => {
  it('has upstream columns', () => {
    assertColumns(endpointSliceTable, [
      ['Name', 'string', 'name', 0],
      ['AddressType', 'string', '', 0],
      ['Ports', 'string', '', 0],
      ['Endpoints', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints ports and endpoint addresses', () => {
    const slice: EndpointSlice = {
      metadata: meta,
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'https', port: 443, protocol: 'TCP' }],
      endpoints: [{ addresses: ['10.244.0.5'] }, { addresses: ['10.244.0.6'], conditions: { ready: false } }],
    };
    assert.deepEqual(endpointSliceTable.cells(slice, NOW), ['web-abc12', 'IPv4', '80,443', '10.244.0.5,10.244.0.6', '5m']);
  });

  it('prints <unset> for no ports or endpoints, and names for unnumbered ports', () => {
    const empty: EndpointSlice = { metadata: meta, addressType: 'IPv6', endpoints: [] };
    assert.deepEqual(endpointSliceTable.cells(empty, NOW), ['web-abc12', 'IPv6', '<unset>', '<unset>', '5m']);
    const named: EndpointSlice = { metadata: meta, addressType: 'IPv4', ports: [{ name: 'dns' }, {}], endpoints: [] };
    assert.equal(endpointSliceTable.cells(named, NOW)[2], 'dns,');
  });

  it('truncates after three', () => {
    const slice: EndpointSlice = {
      metadata: meta,
      addressType: 'IPv4',
      ports: [{ port: 1 }, { port: 2 }, { port: 3 }, { port: 4 }],
      endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3'] }, { addresses: ['10.0.0.4'] }, { addresses: ['10.0.0.5'] }],
    };
    const cells = endpointSliceTable.cells(slice, NOW);
    assert.equal(cells[2], '1,2,3 + 1 more...');
    assert.equal(cells[3], '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...');
  });
});
