import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Service } from 'kubernetes-types/core/v1.js';
import { D, NOW, ago, assertColumns, cellsByName } from '../../printing/testing/table-assertions.js';
import { serviceTable } from './table.js';

const meta = { name: 'web', namespace: 'default', creationTimestamp: ago(2 * D) };

describe('serviceTable', () => {
  it('has upstream columns', () => {
    assertColumns(serviceTable, [
      ['Name', 'string', 'name', 0],
      ['Type', 'string', '', 0],
      ['Cluster-IP', 'string', '', 0],
      ['External-IP', 'string', '', 0],
      ['Port(s)', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Selector', 'string', '', 1],
    ]);
  });

  it('prints a ClusterIP service', () => {
    const svc: Service = {
      metadata: meta,
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10'],
        selector: { app: 'web', tier: 'front' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }, { port: 443, protocol: 'TCP' }],
      },
    };
    assert.deepEqual(serviceTable.cells(svc, NOW), ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP,443/TCP', '2d', 'app=web,tier=front']);
  });

  it('defaults the type and protocol, and prints externalIPs', () => {
    const svc: Service = { metadata: meta, spec: { clusterIP: '10.96.0.11', externalIPs: ['192.0.2.1', '192.0.2.2'], ports: [{ port: 53, protocol: 'UDP' }, { port: 53 }] } };
    const c = cellsByName(serviceTable, svc);
    assert.equal(c['Type'], 'ClusterIP');
    assert.equal(c['External-IP'], '192.0.2.1,192.0.2.2');
    assert.equal(c['Port(s)'], '53/UDP,53/TCP');
    assert.equal(c['Selector'], '<none>');
  });

  it('prints node ports', () => {
    const svc: Service = {
      metadata: meta,
      spec: { type: 'NodePort', clusterIPs: ['10.96.0.12'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 9000, protocol: 'SCTP' }] },
    };
    const c = cellsByName(serviceTable, svc);
    assert.equal(c['Cluster-IP'], '10.96.0.12');
    assert.equal(c['External-IP'], '<none>');
    assert.equal(c['Port(s)'], '80:30080/TCP,9000/SCTP');
  });

  it('prints <pending> for a load balancer without ingress, then its addresses', () => {
    const lb = (status?: Service['status'], externalIPs?: string[]): Service => ({
      metadata: meta,
      spec: { type: 'LoadBalancer', clusterIP: '10.96.0.13', ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }], ...(externalIPs ? { externalIPs } : {}) },
      ...(status ? { status } : {}),
    });
    assert.equal(cellsByName(serviceTable, lb())['External-IP'], '<pending>');
    const ingress = { loadBalancer: { ingress: [{ ip: '198.51.100.9' }, { hostname: 'lb.example.com' }, { ip: '198.51.100.2' }] } };
    assert.equal(cellsByName(serviceTable, lb(ingress))['External-IP'], '198.51.100.2,198.51.100.9,lb.example.com');
    assert.equal(cellsByName(serviceTable, lb(ingress, ['192.0.2.5']))['External-IP'], '198.51.100.2,198.51.100.9,lb.example.com,192.0.2.5');
    assert.equal(cellsByName(serviceTable, lb(undefined, ['192.0.2.5']))['External-IP'], '192.0.2.5');
    assert.equal(cellsByName(serviceTable, lb())['Port(s)'], '443:31443/TCP');
  });

  it('prints an ExternalName service', () => {
    const svc: Service = { metadata: meta, spec: { type: 'ExternalName', externalName: 'db.example.com' } };
    assert.deepEqual(serviceTable.cells(svc, NOW), ['web', 'ExternalName', '<none>', 'db.example.com', '<none>', '2d', '<none>']);
  });

  it('prints None for a headless service', () => {
    const svc: Service = { metadata: meta, spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' }, ports: [{ port: 5432, protocol: 'TCP' }] } };
    const c = cellsByName(serviceTable, svc);
    assert.equal(c['Cluster-IP'], 'None');
    assert.equal(c['Port(s)'], '5432/TCP');
  });

  it('prints <unknown> external IP for an unknown type', () => {
    const svc: Service = { metadata: meta, spec: { type: 'Bogus' } };
    assert.equal(cellsByName(serviceTable, svc)['External-IP'], '<unknown>');
  });
});
