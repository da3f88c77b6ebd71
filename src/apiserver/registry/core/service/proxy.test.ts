import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { splitSchemeNamePort } from '../../../proxy/proxy-id.js';
import { serviceBackend } from './proxy.js';

const service: Service = {
  metadata: { name: 'web', namespace: 'default' },
  spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'metrics', port: 9000, targetPort: 9090 }] },
};
const slice = (endpoints: { ip: string; ready?: boolean }[], ports: { name?: string; port: number }[]): EndpointSlice => ({
  addressType: 'IPv4',
  metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
  endpoints: endpoints.map((e) => ({ addresses: [e.ip], ...(e.ready !== undefined ? { conditions: { ready: e.ready } } : {}) })),
  ports,
});
const id = (s: string) => splitSchemeNamePort(s)!;
const first = () => 0;

describe('serviceBackend', () => {
  const slices = [slice([{ ip: '127.244.1.4', ready: false }, { ip: '127.244.1.5', ready: true }], [{ name: 'http', port: 8080 }, { name: 'metrics', port: 9090 }])];

  it('reaches a ready endpoint on the endpoint port named as the service port', () => {
    assert.deepEqual(serviceBackend(service, slices, id('web:http'), first), { scheme: 'http', host: '127.244.1.5', port: 8080 });
    assert.deepEqual(serviceBackend(service, slices, id('web:9000'), first), { scheme: 'http', host: '127.244.1.5', port: 9090 });
    assert.deepEqual(serviceBackend(service, slices, id('https:web:metrics'), first), { scheme: 'https', host: '127.244.1.5', port: 9090 });
  });

  it('matches an unnamed service port when no port is named; endpoints without a ready condition count as ready', () => {
    const single: Service = { metadata: { name: 'one' }, spec: { ports: [{ port: 80 }] } };
    const s = [slice([{ ip: '10.0.0.7' }], [{ port: 8080 }])];
    assert.deepEqual(serviceBackend(single, s, id('one'), first), { scheme: 'http', host: '10.0.0.7', port: 8080 });
    assert.deepEqual(serviceBackend(single, s, id('one:80'), first), { scheme: 'http', host: '10.0.0.7', port: 8080 });
  });

  it('answers upstream’s 503s: unknown port number, no ready endpoint, no endpoint with the port', () => {
    const unavailable = (message: string) => ({ code: 503, reason: 'ServiceUnavailable', message });
    assert.throws(() => serviceBackend(service, slices, id('web:81'), first), unavailable('no service port 81 found for service "web"'));
    const notReady = [slice([{ ip: '127.244.1.4', ready: false }], [{ name: 'http', port: 8080 }])];
    assert.throws(() => serviceBackend(service, notReady, id('web:http'), first), unavailable('no endpoints available for service "web"'));
    assert.throws(() => serviceBackend(service, [], id('web'), first), unavailable('no endpoints available for service "web"'));
    assert.throws(() => serviceBackend(service, slices, id('web:grpc'), first), unavailable('no endpoints available for service "web:grpc"'));
  });
});
