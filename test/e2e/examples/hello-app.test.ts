/**
 * The example app (examples/hello/hello.js) as a process of its own on
 * 127.0.0.1 and a free port: every endpoint, every flip (through the client
 * mode, as `kubectl exec POD -- hello readiness fail` runs it), the client
 * mode's failures, and a graceful SIGTERM.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../src/cmd/network-defaults.js';
import { HELLO_JS, httpRequest, runToEnd, startHelloProcess, type HelloProcess } from './testing/hello-app.js';

const HOST = '127.0.0.1';

describe('examples/hello/hello.js', () => {
  let port: number;
  let app: HelloProcess;
  const get = (path: string, method = 'GET') => httpRequest({ host: HOST, port, method, path });
  const hello = (...args: string[]) => runToEnd(process.execPath, [HELLO_JS, ...args], { POD_IP: HOST, PORT: String(port) });

  before(async () => {
    port = await freePort();
    app = startHelloProcess(process.execPath, [HELLO_JS], { POD_IP: HOST, PORT: String(port), POD_NAME: 'hello-abc' });
    await app.waitForLine(new RegExp(`hello hello-abc: listening on 127\\.0\\.0\\.1:${port}$`));
  });
  after(async () => {
    if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
    await app.exited();
  });

  it('greets with the pod name and answers its probes', async () => {
    assert.deepEqual(await get('/'), { status: 200, body: 'hello from hello-abc\n' });
    assert.deepEqual(await get('/healthz'), { status: 200, body: 'ok' });
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'ok' });
    assert.deepEqual(await get('/readyz?verbose'), { status: 200, body: 'ok' });
  });

  it('answers 404 for an unknown path and 405 for a known path with the wrong method', async () => {
    assert.equal((await get('/nope')).status, 404);
    assert.equal((await get('/readiness/fail')).status, 405);
    assert.equal((await get('/readyz', 'POST')).status, 405);
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'ok' }, 'a GET of a flip endpoint flips nothing');
  });

  it('fails and passes readiness through the client mode, one log line per flip', async () => {
    const failed = await hello('readiness', 'fail');
    assert.deepEqual([failed.code, failed.stdout], [0, 'readiness failed\n']);
    assert.equal((await get('/readyz')).status, 503);
    assert.deepEqual(await get('/healthz'), { status: 200, body: 'ok' }, 'not ready is still alive');
    assert.deepEqual(await get('/'), { status: 200, body: 'hello from hello-abc\n' }, 'a pod out of the endpoints still answers');
    assert.equal((await hello('readiness', 'fail')).code, 0, 'failing twice is fine');
    await app.waitForLine(/readiness: fail/);

    const passed = await hello('readiness', 'pass');
    assert.deepEqual([passed.code, passed.stdout], [0, 'readiness passed\n']);
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'ok' });
    await app.waitForLine(/readiness: pass/);
    assert.equal(app.output().split('\n').filter((l) => /readiness: fail/.test(l)).length, 1, 'one line per flip, not per request');
  });

  it('fails liveness for good through the client mode', async () => {
    const failed = await hello('liveness', 'fail');
    assert.deepEqual([failed.code, failed.stdout], [0, 'liveness failed\n']);
    assert.equal((await get('/healthz')).status, 500);
    assert.equal((await get('/healthz')).status, 500);
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'ok' });
    await app.waitForLine(/liveness: fail/);
  });

  it('client mode: says why and exits 1 when no server answers, 2 on a usage error', async () => {
    const nobody = await runToEnd(process.execPath, [HELLO_JS, 'readiness', 'fail'], { POD_IP: HOST, PORT: String(await freePort()) });
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /^POST http:\/\/127\.0\.0\.1:\d+\/readiness\/fail: connect ECONNREFUSED/);
    const usage = await hello('readiness', 'maybe');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^usage: hello \[readiness fail \| readiness pass \| liveness fail\]/);
    assert.equal((await hello('liveness', 'pass')).code, 2, 'a failed liveness cannot be passed again: the kubelet restarts the container');
  });

  it('client mode: exits 1 with the status when the server answers something else than 200', async () => {
    // A stand-in server that answers 500 to everything.
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => res.writeHead(500).end('broken\n'));
    await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
    try {
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      const answer = await runToEnd(process.execPath, [HELLO_JS, 'readiness', 'pass'], { POD_IP: HOST, PORT: String(address.port) });
      assert.equal(answer.code, 1);
      assert.match(answer.stderr, /^POST http:\/\/127\.0\.0\.1:\d+\/readiness\/pass: 500 broken$/m);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('greets with the host name when POD_NAME is unset', async () => {
    const otherPort = await freePort();
    const other = startHelloProcess(process.execPath, [HELLO_JS], { POD_IP: HOST, PORT: String(otherPort), POD_NAME: '' });
    try {
      await other.waitForLine(/listening on/);
      assert.deepEqual(await httpRequest({ host: HOST, port: otherPort, path: '/' }), { status: 200, body: `hello from ${hostname()}\n` });
    } finally {
      other.child.kill('SIGKILL');
      await other.exited();
    }
  });

  it('exits 1 when it cannot listen', async () => {
    const taken = await runToEnd(process.execPath, [HELLO_JS], { POD_IP: HOST, PORT: String(port) });
    assert.equal(taken.code, 1);
    assert.match(taken.stdout, /cannot serve on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
  });

  it('on SIGTERM finishes the request in flight, refuses new connections and exits 0', async () => {
    // A request whose headers are half sent is in flight when the signal comes.
    const socket = connect(port, HOST);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`GET / HTTP/1.1\r\nHost: ${HOST}\r\n`);
    // Once another request was answered, the server has read the half-sent headers (written before it).
    assert.equal((await get('/')).status, 200);
    app.child.kill('SIGTERM');
    await app.waitForLine(/SIGTERM: stopping/);
    // Refused, or reset when the kernel had already queued the connection on the closing listener.
    await assert.rejects(get('/'), /ECONNREFUSED|ECONNRESET/);
    socket.write('\r\n');
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /hello from hello-abc\n/);
    assert.equal(await app.exited(), 0);
  });
});
