import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grpcProbe } from './grpc-probe.js';
import { freePort, startGrpcHealthServer, startGrpcServerWithoutHealth, type GrpcHealthServer, type RunningServer } from './testing/test-servers.js';

describe('grpcProbe (real gRPC servers on 127.0.0.1)', () => {
  let server: GrpcHealthServer;
  let slow: GrpcHealthServer;
  let bare: RunningServer;
  before(async () => {
    server = await startGrpcHealthServer();
    slow = await startGrpcHealthServer({ delayMs: 2000 });
    bare = await startGrpcServerWithoutHealth();
  });
  after(async () => {
    await Promise.all([server.close(), slow.close(), bare.close()]);
  });

  const probe = (port: number, service = '', timeoutMs = 5000) => grpcProbe({ host: '127.0.0.1', port, service, timeoutMs });

  it('succeeds on SERVING, asking about the named service', async () => {
    server.setStatus('', 'SERVING');
    server.setStatus('db', 'SERVING');
    assert.deepEqual(await probe(server.port), { verdict: 'success', output: 'service is healthy' });
    assert.deepEqual(await probe(server.port, 'db'), { verdict: 'success', output: 'service is healthy' });
    assert.deepEqual(server.requests.slice(-2), ['', 'db']);
  });

  it('fails on NOT_SERVING', async () => {
    server.setStatus('db', 'NOT_SERVING');
    assert.deepEqual(await probe(server.port, 'db'), { verdict: 'failure', output: 'service unhealthy (responded with "NOT_SERVING")' });
  });

  it('fails for an unknown service with the rpc error', async () => {
    assert.deepEqual(await probe(server.port, 'nope'), {
      verdict: 'failure',
      output: 'error: health rpc probe failed: rpc error: code = NotFound desc = unknown service',
    });
  });

  it('fails when the server has no health service', async () => {
    const r = await probe(bare.port);
    assert.equal(r.verdict, 'failure');
    assert.match(r.output, /^error: this server does not implement the grpc health protocol \(grpc\.health\.v1\.Health\): /);
  });

  it('fails when it cannot connect within the timeout', async () => {
    const port = await freePort();
    assert.deepEqual(await probe(port, '', 200), {
      verdict: 'failure',
      output: `timeout: failed to connect service "127.0.0.1:${port}" within 200ms: context deadline exceeded`,
    });
  });

  it('fails when the check does not answer within the timeout', async () => {
    slow.setStatus('', 'SERVING');
    assert.deepEqual(await probe(slow.port, '', 1000), { verdict: 'failure', output: 'timeout: health rpc did not complete within 1s' });
  });
});
