import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Service } from '../types.js';
import { serviceEnvVars, servicesForPod } from './service-env.js';

const svc = (namespace: string, name: string, clusterIP: string, ports: { name?: string; port: number; protocol?: string }[] = [{ port: 80 }]): Service => ({
  metadata: { namespace, name },
  spec: { clusterIP, ports },
});

describe('service link variables', () => {
  it('writes host, ports, named ports and the docker link variables', () => {
    const vars = new Map(serviceEnvVars([svc('ns', 'my-db', '10.0.0.5', [{ name: 'pg', port: 5432 }, { name: 'metrics-http', port: 9187, protocol: 'UDP' }])]));
    assert.deepEqual(Object.fromEntries(vars), {
      MY_DB_SERVICE_HOST: '10.0.0.5',
      MY_DB_SERVICE_PORT: '5432',
      MY_DB_SERVICE_PORT_PG: '5432',
      MY_DB_SERVICE_PORT_METRICS_HTTP: '9187',
      MY_DB_PORT: 'tcp://10.0.0.5:5432',
      MY_DB_PORT_5432_TCP: 'tcp://10.0.0.5:5432',
      MY_DB_PORT_5432_TCP_PROTO: 'tcp',
      MY_DB_PORT_5432_TCP_PORT: '5432',
      MY_DB_PORT_5432_TCP_ADDR: '10.0.0.5',
      MY_DB_PORT_9187_UDP: 'udp://10.0.0.5:9187',
      MY_DB_PORT_9187_UDP_PROTO: 'udp',
      MY_DB_PORT_9187_UDP_PORT: '9187',
      MY_DB_PORT_9187_UDP_ADDR: '10.0.0.5',
    });
  });

  it('brackets an IPv6 cluster IP in URLs and skips headless and portless services', () => {
    const vars = new Map(serviceEnvVars([svc('ns', 'v6', 'fd00::1'), svc('ns', 'headless', 'None'), svc('ns', 'none', ''), svc('ns', 'noports', '10.0.0.9', [])]));
    assert.equal(vars.get('V6_PORT'), 'tcp://[fd00::1]:80');
    assert.equal(vars.get('V6_PORT_80_TCP_ADDR'), 'fd00::1');
    assert.equal(vars.get('HEADLESS_SERVICE_HOST'), undefined);
    assert.equal(vars.get('NONE_SERVICE_HOST'), undefined);
    assert.equal(vars.get('NOPORTS_SERVICE_HOST'), '10.0.0.9');
    assert.equal(vars.get('NOPORTS_SERVICE_PORT'), undefined);
  });

  it('always includes default/kubernetes, the namespace services only with links on, and the own namespace wins', () => {
    const defaults = [svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]), svc('default', 'other', '10.96.0.2')];
    const own = [svc('app', 'web', '10.96.0.3'), svc('app', 'headless', 'None')];
    const names = (services: Service[]): string[] => services.map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
    assert.deepEqual(names(servicesForPod({ namespace: 'app', enableServiceLinks: true, own, defaults })), ['default/kubernetes', 'app/web']);
    assert.deepEqual(names(servicesForPod({ namespace: 'app', enableServiceLinks: false, own, defaults })), ['default/kubernetes']);
    assert.deepEqual(names(servicesForPod({ namespace: 'default', enableServiceLinks: true, own: [], defaults })), ['default/kubernetes', 'default/other']);
    assert.deepEqual(names(servicesForPod({ namespace: 'default', enableServiceLinks: false, own: [], defaults })), ['default/kubernetes']);
    const shadow = [svc('app', 'kubernetes', '10.96.0.9')];
    assert.deepEqual(names(servicesForPod({ namespace: 'app', enableServiceLinks: true, own: shadow, defaults })), ['app/kubernetes']);
  });
});
