import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalHeaderKey, newHttpProbeRequest, PROBE_USER_AGENT } from './http-probe-request.js';

const container = { name: 'app', ports: [{ name: 'web', containerPort: 8080 }] };

describe('newHttpProbeRequest', () => {
  it("defaults as upstream: http, the pod IP, kube-probe's User-Agent and Accept */*", () => {
    const r = newHttpProbeRequest({ port: 'web', path: '/healthz' }, container, '127.244.0.5');
    assert.equal(r.url, 'http://127.244.0.5:8080/healthz');
    assert.deepEqual([...r.headers], [
      ['User-Agent', [PROBE_USER_AGENT]],
      ['Accept', ['*/*']],
    ]);
    assert.equal(PROBE_USER_AGENT, 'kube-probe/1.33');
  });

  it('takes scheme, host, path with a query, and repeated headers in canonical form', () => {
    const r = newHttpProbeRequest(
      {
        scheme: 'HTTPS',
        host: '::1',
        port: 443,
        path: 'ready?full=1',
        httpHeaders: [
          { name: 'x-custom', value: 'a' },
          { name: 'X-CUSTOM', value: 'b' },
          { name: 'user-agent', value: 'mine' },
          { name: 'Accept', value: '' },
          { name: 'host', value: 'example.test' },
        ],
      },
      container,
      '127.0.0.9',
    );
    assert.equal(r.url, 'https://[::1]:443/ready?full=1');
    assert.deepEqual(r.headers.get('X-Custom'), ['a', 'b']);
    assert.deepEqual(r.headers.get('User-Agent'), ['mine']);
    assert.equal(r.headers.has('Accept'), false);
    assert.deepEqual(r.headers.get('Host'), ['example.test']);
  });

  it('writes no path when none is given, and canonicalises like Go', () => {
    assert.equal(newHttpProbeRequest({ port: 80 }, container, '10.0.0.1').url, 'http://10.0.0.1:80');
    assert.equal(canonicalHeaderKey('content-TYPE'), 'Content-Type');
    assert.equal(canonicalHeaderKey('bad header'), 'bad header');
  });

  it('throws for a port it cannot resolve', () => {
    assert.throws(() => newHttpProbeRequest({ port: 'nope' }, container, '10.0.0.1'), { message: 'strconv.Atoi: parsing "nope": invalid syntax' });
  });
});
