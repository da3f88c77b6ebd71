import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { newComponents } from './components.js';
import { probeEtcd, probeHttp, probeStorage } from './probe.js';

/** A health endpoint: /healthz answers ok, /broken 500, /hang never answers. */
function listen(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz' || req.url === '/health') res.end(req.url === '/health' ? '{"health":"true"}' : 'ok');
    else if (req.url === '/broken') {
      res.statusCode = 500;
      res.end('boom');
    }
    // /hang: no answer.
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = await listen();
  const port = (s.address() as AddressInfo).port;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe('ComponentStatus probes', () => {
  let server: Server;
  let base: string;
  before(async () => {
    server = await listen();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('a healthy endpoint: True, its body as the message', async () => {
    assert.deepEqual(await probeHttp(`${base}/healthz`), { type: 'Healthy', status: 'True', message: 'ok' });
  });

  it('another status code: False, upstream’s message', async () => {
    assert.deepEqual(await probeHttp(`${base}/broken`), { type: 'Healthy', status: 'False', message: 'HTTP probe failed with statuscode: 500' });
  });

  it('a refused connection: False, Go’s dial error as the message', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/healthz`;
    assert.deepEqual(await probeHttp(url), {
      type: 'Healthy',
      status: 'False',
      message: `Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
  });

  it('no answer within the timeout: False, a deadline message', async () => {
    const started = Date.now();
    const c = await probeHttp(`${base}/hang`, 200);
    assert.equal(c.status, 'False');
    assert.match(c.message ?? '', /^Get ".*\/hang": context deadline exceeded/);
    assert.ok(Date.now() - started < 5_000);
  });

  it('the storage check: ok when it passes, its error otherwise, False at the timeout', async () => {
    assert.deepEqual(await probeStorage(async () => {}), { type: 'Healthy', status: 'True', message: 'ok' });
    assert.deepEqual(await probeStorage(async () => Promise.reject(new Error('database is closed'))), { type: 'Healthy', status: 'False', error: 'database is closed' });
    assert.deepEqual(await probeStorage(() => new Promise(() => {}), 50), { type: 'Healthy', status: 'False', error: 'context deadline exceeded' });
  });

  it('an etcd server: ok when /health says so, the failure as the error otherwise', async () => {
    assert.deepEqual(await probeEtcd(`${base}/`), { type: 'Healthy', status: 'True', message: 'ok' });
    const port = await closedPort();
    assert.deepEqual(await probeEtcd(`http://127.0.0.1:${port}`), {
      type: 'Healthy',
      status: 'False',
      error: `Get "http://127.0.0.1:${port}/health": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
  });

  it('names: scheduler, controller-manager, then etcd-0… per etcd server, or etcd-0 for the embedded store', async () => {
    assert.deepEqual([...newComponents({ storageCheck: async () => {} }).keys()], ['scheduler', 'controller-manager', 'etcd-0']);
    const etcd = newComponents({ etcdServers: [base, `${base}/`], storageCheck: async () => {} });
    assert.deepEqual([...etcd.keys()], ['scheduler', 'controller-manager', 'etcd-0', 'etcd-1']);
    // Each etcd server is probed at its /health.
    assert.deepEqual(await etcd.get('etcd-1')!(), { type: 'Healthy', status: 'True', message: 'ok' });
    assert.deepEqual([...newComponents().keys()], ['scheduler', 'controller-manager']);
  });
});
