import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { splitSchemeNamePort } from '../../../proxy/proxy-id.js';
import { podBackend } from './proxy.js';

const pod = (ip: string | undefined, ports: { name?: string; containerPort: number }[] = []): Pod => ({
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'side', image: 'x' }, { name: 'main', image: 'x', ports }] },
  status: ip === undefined ? {} : { podIP: ip, podIPs: [{ ip }] },
});
const id = (s: string) => splitSchemeNamePort(s)!;

describe('podBackend', () => {
  it('reaches the pod IP on the port asked, a named container port, or the first declared one', () => {
    const p = pod('127.244.1.5', [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }]);
    assert.deepEqual(podBackend(p, id('web:7000')), { scheme: 'http', host: '127.244.1.5', port: 7000 });
    assert.deepEqual(podBackend(p, id('web:metrics')), { scheme: 'http', host: '127.244.1.5', port: 9090 });
    assert.deepEqual(podBackend(p, id('web')), { scheme: 'http', host: '127.244.1.5', port: 8080 });
    assert.deepEqual(podBackend(p, id('https:web:8443')), { scheme: 'https', host: '127.244.1.5', port: 8443 });
  });

  it('uses the scheme’s port when no container declares one', () => {
    assert.equal(podBackend(pod('10.244.0.9'), id('web')).port, 80);
    assert.equal(podBackend(pod('10.244.0.9'), id('https:web:')).port, 443);
  });

  it('refuses a pod without an address, or with one it may not proxy to, as upstream: 400 address not allowed', () => {
    for (const p of [pod(undefined), pod('169.254.0.1')]) {
      assert.throws(() => podBackend(p, id('web:80')), { code: 400, reason: 'BadRequest', message: 'address not allowed' });
    }
  });

  it('fails a port name no container has, and a port out of range, as the dial fails upstream (503)', () => {
    assert.throws(() => podBackend(pod('127.244.1.5'), id('web:nope')), {
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'error trying to reach service: dial tcp: lookup tcp/nope: unknown port',
    });
    assert.throws(() => podBackend(pod('127.244.1.5'), id('web:70000')), { code: 503, message: 'error trying to reach service: dial tcp: address 70000: invalid port' });
  });
});
