import { strict as assert } from 'node:assert';
import { get } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ENDPOINT_SLICES, SERVICES } from '../client/rest/resources.js';
import { newFakeClient } from '../client/testing/fake-client.js';
import { waitFor } from '../client/testing/wait-for.js';
import { startClusterDns, type ClusterDns } from './cluster-dns.js';
import type { EndpointSliceObject, ServiceObject } from './service-entry.js';
import { queryTcp, queryUdp } from './testing/dns-query.js';

const httpGet = (port: number, path: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

const svc = (namespace: string, name: string, spec: ServiceObject['spec']): ServiceObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, ...(spec !== undefined ? { spec } : {}) });
const slice = (namespace: string, service: string, name: string, endpoints: EndpointSliceObject['endpoints'], ports: NonNullable<EndpointSliceObject['ports']>): EndpointSliceObject => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace, name, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4',
  endpoints,
  ports,
});

describe('startClusterDns (informers on a fake client)', () => {
  const client = newFakeClient();
  let dns: ClusterDns;
  before(async () => {
    client.seed(SERVICES, [svc('default', 'web', { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], ports: [{ name: 'http', port: 80 }] }), svc('db', 'pg', { clusterIP: 'None' })]);
    client.seed(ENDPOINT_SLICES, [slice('db', 'pg', 'pg-abc', [{ addresses: ['10.244.0.7'], hostname: 'pg-0' }], [{ name: 'pg', port: 5432, protocol: 'TCP' }])]);
    dns = await startClusterDns({ client, host: '127.0.0.1', port: 0, healthHost: '127.0.0.1', healthPort: 0, domain: 'cluster.local' });
    await dns.synced;
  });
  after(async () => {
    await dns.stop();
  });

  it('is ready once synced, and serves /healthz and /metrics', async () => {
    assert.equal(dns.ready, true);
    assert.equal((await httpGet(dns.health.port, '/readyz')).status, 200);
    assert.equal((await httpGet(dns.health.port, '/healthz')).status, 200);
    assert.equal((await httpGet(dns.health.port, '/nope')).status, 404);
    await queryUdp(dns.dns.port, 'web.default.svc.cluster.local', 'A');
    assert.match((await httpGet(dns.health.port, '/metrics')).body, /coredns_dns_requests_total\{/);
  });
  it('answers from the Services and EndpointSlices the informers listed', async () => {
    assert.deepEqual((await queryUdp(dns.dns.port, 'web.default.svc.cluster.local', 'A')).answers?.map((a) => (a.type === 'A' ? a.data : '')), ['10.96.0.20']);
    assert.deepEqual((await queryTcp(dns.dns.port, 'pg-0.pg.db.svc.cluster.local', 'A')).answers?.map((a) => (a.type === 'A' ? a.data : '')), ['10.244.0.7']);
  });
  it('follows changes: a new slice, a slice moved to another Service, a deleted Service', async () => {
    const slices = client.resource<EndpointSliceObject>(ENDPOINT_SLICES);
    await client.resource<ServiceObject>(SERVICES).create(svc('db', 'other', { clusterIP: 'None' }), { namespace: 'db' });
    await slices.create(slice('db', 'pg', 'pg-def', [{ addresses: ['10.244.0.8'] }], []), { namespace: 'db' });
    await waitFor(async () => (await queryUdp(dns.dns.port, 'pg.db.svc.cluster.local', 'A')).answers?.length === 2, { description: 'second pg address' });
    const moved = await slices.get('pg-def', { namespace: 'db' });
    moved.metadata.labels = { 'kubernetes.io/service-name': 'other' };
    await slices.update(moved, { namespace: 'db' });
    await waitFor(async () => (await queryUdp(dns.dns.port, 'pg.db.svc.cluster.local', 'A')).answers?.length === 1, { description: 'pg back to one address' });
    assert.equal((await queryUdp(dns.dns.port, 'other.db.svc.cluster.local', 'A')).answers?.length, 1);
    await slices.delete('pg-def', { namespace: 'db' });
    await waitFor(async () => (await queryUdp(dns.dns.port, 'other.db.svc.cluster.local', 'A')).rcode === 'NXDOMAIN', { description: 'other has no endpoints' });
    await client.resource(SERVICES).delete('web', { namespace: 'default' });
    await waitFor(async () => (await queryUdp(dns.dns.port, 'web.default.svc.cluster.local', 'A')).rcode === 'NXDOMAIN', { description: 'web gone' });
  });
  it('a slice without the service-name label is ignored', async () => {
    const unlabelled = slice('db', 'pg', 'loose', [{ addresses: ['10.244.0.9'] }], []);
    unlabelled.metadata.labels = {};
    await client.resource<EndpointSliceObject>(ENDPOINT_SLICES).create(unlabelled, { namespace: 'db' });
    assert.deepEqual((await queryUdp(dns.dns.port, 'pg.db.svc.cluster.local', 'A')).answers?.map((a) => (a.type === 'A' ? a.data : '')), ['10.244.0.7']);
  });
});

describe('startClusterDns failures and readiness', () => {
  it('is not ready (503) until the informers sync', async () => {
    const client = newFakeClient();
    client.injectError('list', 'services', new Error('apiserver down'), 1_000_000);
    const errors: string[] = [];
    const dns = await startClusterDns({ client, host: '127.0.0.1', port: 0, healthHost: '127.0.0.1', healthPort: 0, onError: (m) => errors.push(m) });
    try {
      assert.equal((await httpGet(dns.health.port, '/readyz')).status, 503);
      assert.equal(dns.ready, false);
      await waitFor(() => errors.length > 0, { description: 'an informer error reported' });
    } finally {
      await dns.stop();
    }
  });
  it('a health port in use fails the start and frees the DNS port', async () => {
    const first = await startClusterDns({ client: newFakeClient(), host: '127.0.0.1', port: 0, healthHost: '127.0.0.1', healthPort: 0 });
    try {
      await assert.rejects(startClusterDns({ client: newFakeClient(), host: '127.0.0.1', port: 0, healthHost: '127.0.0.1', healthPort: first.health.port }), /EADDRINUSE/);
    } finally {
      await first.stop();
    }
  });
});
