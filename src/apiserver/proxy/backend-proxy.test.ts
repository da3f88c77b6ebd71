import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeDialError, forwardedRequestHeaders, forwardedResponseHeaders, unreachable } from './backend-proxy.js';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`connect ${code}`), { code });

describe('forwardedRequestHeaders', () => {
  it('drops credentials, impersonation, hop-by-hop and HTTP/2 pseudo-headers, and appends X-Forwarded-For', () => {
    const out = forwardedRequestHeaders(
      {
        ':method': 'GET',
        host: 'apiserver',
        authorization: 'Bearer secret',
        'impersonate-user': 'jane',
        connection: 'keep-alive, x-private',
        'x-private': 'p',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        upgrade: 'h2c',
        accept: 'application/json',
        'content-type': 'text/plain',
        'x-forwarded-for': '10.0.0.1',
      },
      '127.0.0.9',
    );
    assert.deepEqual(out, { accept: 'application/json', 'content-type': 'text/plain', 'x-forwarded-for': '10.0.0.1, 127.0.0.9' });
    assert.deepEqual(forwardedRequestHeaders({}, '127.0.0.9'), { 'x-forwarded-for': '127.0.0.9' });
  });
});

describe('forwardedResponseHeaders', () => {
  it('keeps the backend’s headers but those of its connection', () => {
    assert.deepEqual(forwardedResponseHeaders({ 'content-type': 'text/html', 'set-cookie': ['a=1', 'b=2'], connection: 'close', 'transfer-encoding': 'chunked' }), {
      'content-type': 'text/html',
      'set-cookie': ['a=1', 'b=2'],
    });
  });
});

describe('unreachable', () => {
  it('words connection failures as Go’s dialer does, in a 503', () => {
    assert.equal(describeDialError(errno('ECONNREFUSED'), '127.244.0.5', 8080), 'dial tcp 127.244.0.5:8080: connect: connection refused');
    assert.equal(describeDialError(errno('EHOSTUNREACH'), '10.244.0.5', 80), 'dial tcp 10.244.0.5:80: connect: no route to host');
    assert.equal(describeDialError(errno('ENETUNREACH'), 'fd00::5', 80), 'dial tcp [fd00::5]:80: connect: network is unreachable');
    assert.equal(describeDialError(errno('ETIMEDOUT'), '10.244.0.5', 80), 'dial tcp 10.244.0.5:80: i/o timeout');
    assert.equal(describeDialError(new Error('self-signed certificate'), 'h', 1), 'self-signed certificate');
    const e = unreachable(errno('ECONNREFUSED'), { scheme: 'http', host: '127.244.0.5', port: 9 });
    assert.equal(e.code, 503);
    assert.equal(e.reason, 'ServiceUnavailable');
    assert.equal(e.message, 'error trying to reach service: dial tcp 127.244.0.5:9: connect: connection refused');
  });
});
