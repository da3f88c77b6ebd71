import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { headlessEndpoints, serviceEntry, type EndpointSliceObject, type ServiceObject } from './service-entry.js';

const service = (spec: ServiceObject['spec']): ServiceObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'ns', name: 'web' }, ...(spec !== undefined ? { spec } : {}) });
const slice = (name: string, addressType: string, endpoints: EndpointSliceObject['endpoints'], ports: EndpointSliceObject['ports'] = []): EndpointSliceObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'ns', name, labels: { 'kubernetes.io/service-name': 'web' } },
  addressType,
  endpoints,
  ports,
});

describe('serviceEntry', () => {
  it('ClusterIP: clusterIPs (or clusterIP), ports with TCP as the default protocol', () => {
    assert.deepEqual(serviceEntry(service({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', 'fd00::1'], ports: [{ name: 'http', port: 80 }, { port: 53, protocol: 'UDP' }] }), []), {
      kind: 'ClusterIP',
      namespace: 'ns',
      name: 'web',
      clusterIPs: ['10.0.0.1', 'fd00::1'],
      ports: [
        { name: 'http', protocol: 'TCP', port: 80 },
        { name: '', protocol: 'UDP', port: 53 },
      ],
    });
    const onlyClusterIP = serviceEntry(service({ clusterIP: '10.0.0.2' }), []);
    assert.deepEqual(onlyClusterIP.kind === 'ClusterIP' ? onlyClusterIP.clusterIPs : undefined, ['10.0.0.2']);
  });
  it('a Service without spec or clusterIP: ClusterIP with no addresses', () => {
    const entry = serviceEntry(service(undefined), []);
    assert.deepEqual(entry.kind === 'ClusterIP' ? [entry.clusterIPs, entry.ports] : undefined, [[], []]);
    const blank = serviceEntry(service({ clusterIP: '' }), []);
    assert.deepEqual(blank.kind === 'ClusterIP' ? blank.clusterIPs : undefined, []);
  });
  it('ExternalName', () => {
    assert.deepEqual(serviceEntry(service({ type: 'ExternalName', externalName: 'example.com', ports: [{ name: 'x', port: 1, protocol: 'SCTP' }] }), []), {
      kind: 'ExternalName',
      namespace: 'ns',
      name: 'web',
      externalName: 'example.com',
      ports: [{ name: 'x', protocol: 'SCTP', port: 1 }],
    });
    const noName = serviceEntry(service({ type: 'ExternalName' }), []);
    assert.equal(noName.kind === 'ExternalName' ? noName.externalName : undefined, '');
  });
  it('headless: ready endpoints of IPv4/IPv6 slices with the slice ports and hostnames; FQDN slices and not-ready endpoints skipped', () => {
    const entry = serviceEntry(service({ clusterIP: 'None' }), [
      slice('web-b', 'IPv4', [{ addresses: ['10.0.0.2'], conditions: { ready: false } }, { addresses: ['10.0.0.3'] }], [{ name: 'http', port: 8080 }, { name: 'nop' }]),
      slice('web-a', 'IPv4', [{ addresses: ['10.0.0.1'], hostname: 'web-0', conditions: { ready: true } }, { addresses: ['10.0.0.4'], hostname: '' }], [{ name: 'http', port: 8080 }]),
      slice('web-c', 'FQDN', [{ addresses: ['example.com'] }]),
      slice('web-d', 'IPv6', [{ addresses: ['fd00::1'] }]),
    ]);
    assert.deepEqual(entry, {
      kind: 'Headless',
      namespace: 'ns',
      name: 'web',
      endpoints: [
        { ip: '10.0.0.1', hostname: 'web-0', ports: [{ name: 'http', protocol: 'TCP', port: 8080 }] },
        { ip: '10.0.0.4', ports: [{ name: 'http', protocol: 'TCP', port: 8080 }] },
        { ip: '10.0.0.3', ports: [{ name: 'http', protocol: 'TCP', port: 8080 }] },
        { ip: 'fd00::1', ports: [] },
      ],
    });
  });
  it('headless with publishNotReadyAddresses: not-ready endpoints too; an address in two slices once', () => {
    const endpoints = headlessEndpoints(service({ clusterIP: 'None', publishNotReadyAddresses: true }), [
      slice('a', 'IPv4', [{ addresses: ['10.0.0.2'], conditions: { ready: false } }]),
      slice('b', 'IPv4', [{ addresses: ['10.0.0.2'], conditions: { ready: false } }]),
    ]);
    assert.deepEqual(endpoints.map((e) => e.ip), ['10.0.0.2']);
  });
  it('headless with slices of no endpoints', () => {
    const s = slice('a', 'IPv4', []);
    delete (s as { endpoints?: unknown }).endpoints;
    assert.deepEqual(headlessEndpoints(service({ clusterIP: 'None' }), [s]), []);
  });
});
