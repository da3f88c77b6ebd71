import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { D, NOW, ago, assertColumns } from '../../printing/testing/table-assertions.js';
import { ingressTable } from './table.js';

describe('ingressTable', () => {
  it('has upstream columns', () => {
    assertColumns(ingressTable, [
      ['Name', 'string', 'name', 0],
      ['Class', 'string', '', 0],
      ['Hosts', 'string', '', 0],
      ['Address', 'string', '', 0],
      ['Ports', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  it('prints <none>, * and 80 for a bare Ingress', () => {
    const ing = { metadata: { name: 'web', creationTimestamp: ago(D) }, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } };
    assert.deepEqual(ingressTable.cells(ing, NOW), ['web', '<none>', '*', '', '80', '24h']);
  });

  it('prints class, hosts (three, then + N more...), sorted addresses and 80, 443 with TLS', () => {
    const ing = {
      metadata: { name: 'web', creationTimestamp: ago(2 * D) },
      spec: {
        ingressClassName: 'nginx',
        rules: [{ host: 'a.example.com' }, {}, { host: 'b.example.com' }, { host: 'c.example.com' }, { host: 'd.example.com' }],
        tls: [{ hosts: ['a.example.com'] }],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.1', hostname: 'x' }, { ip: '10.0.0.2' }] } },
    };
    assert.deepEqual(ingressTable.cells(ing, NOW), ['web', 'nginx', 'a.example.com,b.example.com,c.example.com + 2 more...', '10.0.0.1,10.0.0.2,lb.example.com', '80, 443', '2d']);
  });
});
