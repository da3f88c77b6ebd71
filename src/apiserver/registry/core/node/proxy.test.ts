import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../machinery/status.js';
import { splitSchemeNamePort } from '../../../proxy/proxy-id.js';
import { nodeBackend } from './proxy.js';

const kubelet = { host: '127.0.0.2', port: 10250 };
const id = (s: string) => splitSchemeNamePort(s)!;

describe('nodeBackend', () => {
  it('reaches the kubelet over HTTPS with the kubelet client’s TLS options when no other port is asked', () => {
    for (const name of ['node-a', 'node-a:10250', 'http:node-a:10250']) {
      const b = nodeBackend({ cert: 'CERT', key: 'KEY', ca: 'CA' }, kubelet, id(name));
      assert.equal(b.scheme, 'https');
      assert.equal(b.host, '127.0.0.2');
      assert.equal(b.port, 10250);
      assert.equal(b.tls?.['cert'], 'CERT');
      assert.equal(b.tls?.['ca'], 'CA');
      assert.equal(b.tls?.['rejectUnauthorized'], true);
    }
  });

  it('reaches another port of the node plainly, with the scheme asked', () => {
    assert.deepEqual(nodeBackend({}, kubelet, id('node-a:9100')), { scheme: 'http', host: '127.0.0.2', port: 9100 });
    assert.deepEqual(nodeBackend({}, kubelet, id('https:node-a:9443')), { scheme: 'https', host: '127.0.0.2', port: 9443 });
  });

  it('refuses an address it may not proxy to and a port it cannot dial', () => {
    try {
      nodeBackend({}, { host: '169.254.1.1', port: 10250 }, id('node-a'));
      assert.fail('no error');
    } catch (e: unknown) {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 400);
      assert.equal(e.message, 'address not allowed');
    }
    assert.throws(() => nodeBackend({}, kubelet, id('node-a:metrics')), (e: unknown) => e instanceof StatusError && e.code === 503 && e.message === 'error trying to reach service: dial tcp: lookup tcp/metrics: unknown port');
  });
});
