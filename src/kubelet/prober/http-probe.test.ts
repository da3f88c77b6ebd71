import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { httpProbe } from './http-probe.js';
import { newHttpProbeRequest } from './http-probe-request.js';
import { ProbeError } from './probe-outcome.js';
import { freePort, startHttpServer, startHttpsServer, type RunningServer } from './testing/test-servers.js';

const container = { name: 'app', ports: [{ name: 'web', containerPort: 0 }] };

describe('httpProbe (real servers on 127.0.0.1)', () => {
  let server: RunningServer;
  let other: RunningServer;
  let second: RunningServer;
  let tls: RunningServer;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const hang = new Set<() => void>();

  before(async () => {
    other = await startHttpServer((_req, res) => res.end('other host'), '127.0.0.2');
    second = await startHttpServer((_req, res) => res.end('second port'));
    server = await startHttpServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/ok':
          res.end('fine');
          return;
        case '/status':
          res.statusCode = Number(url.searchParams.get('code'));
          res.end('body that must not appear in the failure');
          return;
        case '/redirect':
          res.statusCode = Number(url.searchParams.get('code') ?? 302);
          res.setHeader('Location', url.searchParams.get('loc') ?? '/ok');
          res.end('<a href="elsewhere">Found</a>.');
          return;
        case '/loop':
          res.statusCode = 302;
          res.setHeader('Location', '/loop');
          res.end();
          return;
        case '/big':
          res.end('x'.repeat(64 * 1024));
          return;
        case '/hang':
          hang.add(() => res.end());
          return;
        case '/slow-body':
          res.writeHead(200);
          res.write('a start');
          hang.add(() => res.end());
          return;
        default:
          res.statusCode = 404;
          res.end();
      }
    });
    tls = await startHttpsServer((_req, res) => res.end('secure'));
  });
  after(async () => {
    for (const release of hang) release();
    await Promise.all([server.close(), other.close(), second.close(), tls.close()]);
  });

  const probe = (path: string, extra: { port?: number; scheme?: string; headers?: { name: string; value: string }[]; timeoutMs?: number } = {}) =>
    httpProbe({
      request: newHttpProbeRequest(
        { port: extra.port ?? server.port, path, ...(extra.scheme ? { scheme: extra.scheme } : {}), ...(extra.headers ? { httpHeaders: extra.headers } : {}) },
        container,
        '127.0.0.1',
      ),
      timeoutMs: extra.timeoutMs ?? 5000,
    });

  it('succeeds on 200 and sends kube-probe headers, Connection: close, no Accept-Encoding', async () => {
    seen.length = 0;
    assert.deepEqual(await probe('/ok'), { verdict: 'success', output: 'fine' });
    const h = seen[0]!.headers;
    assert.equal(h['user-agent'], 'kube-probe/1.33');
    assert.equal(h['accept'], '*/*');
    assert.equal(h['connection'], 'close');
    assert.equal(h['accept-encoding'], undefined);
    assert.equal(h['host'], `127.0.0.1:${server.port}`);
  });

  it('gives every probe a connection of its own, closed once answered, also while another probe to the same server waits', async () => {
    const closed: Promise<void>[] = [];
    const ports: number[] = [];
    let release: () => void = () => undefined;
    let hung: Promise<void> | undefined;
    const arrived = new Promise<void>((resolve) => {
      hung = undefined;
      release = resolve;
    });
    let answerHang: (() => void) | undefined;
    const own = await startHttpServer((req, res) => {
      ports.push(req.socket.remotePort ?? 0);
      const socketClosed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
      if (req.url === '/hang') {
        hung = socketClosed;
        answerHang = () => res.end('late');
        release();
      } else {
        closed.push(socketClosed);
        res.end('ok');
      }
    });
    try {
      const at = (path: string) => httpProbe({ request: newHttpProbeRequest({ port: own.port, path }, container, '127.0.0.1'), timeoutMs: 5000 });
      const waiting = at('/hang');
      await arrived;
      for (let i = 0; i < 3; i++) assert.deepEqual(await at('/ok'), { verdict: 'success', output: 'ok' });
      await Promise.all(closed);
      answerHang?.();
      assert.deepEqual(await waiting, { verdict: 'success', output: 'late' });
      await hung;
      assert.equal(new Set(ports).size, 4, 'four connections');
    } finally {
      await own.close();
    }
  });

  it('sends custom headers, repeated ones and a Host override', async () => {
    seen.length = 0;
    await probe('/ok', { headers: [{ name: 'x-probe', value: 'a' }, { name: 'X-Probe', value: 'b' }, { name: 'Host', value: 'svc.example' }] });
    assert.equal(seen[0]!.headers['x-probe'], 'a, b');
    assert.equal(seen[0]!.headers['host'], 'svc.example');
  });

  it('fails on 500 with the status code only (no body, as upstream)', async () => {
    assert.deepEqual(await probe('/status?code=500'), { verdict: 'failure', output: 'HTTP probe failed with statuscode: 500' });
    assert.deepEqual(await probe('/status?code=404'), { verdict: 'failure', output: 'HTTP probe failed with statuscode: 404' });
    assert.equal((await probe('/status?code=399')).verdict, 'warning');
    assert.equal((await probe('/status?code=204')).verdict, 'success');
  });

  it('follows redirects to the same host, even on another port', async () => {
    assert.deepEqual(await probe('/redirect?code=301&loc=/ok'), { verdict: 'success', output: 'fine' });
    const loc = `http://127.0.0.1:${second.port}/`;
    assert.deepEqual(await probe(`/redirect?loc=${encodeURIComponent(loc)}`), { verdict: 'success', output: 'second port' });
    assert.deepEqual(await probe(`/redirect?code=307&loc=${encodeURIComponent('/status?code=503')}`), { verdict: 'failure', output: 'HTTP probe failed with statuscode: 503' });
  });

  it('keeps headers across a redirect, and a Host override only for a relative location', async () => {
    const headers = [{ name: 'X-Probe', value: 'kept' }, { name: 'Host', value: 'svc.example' }];
    seen.length = 0;
    await probe('/redirect?loc=/ok', { headers });
    assert.deepEqual(seen.map((r) => [r.url, r.headers['host'], r.headers['x-probe']]), [
      ['/redirect?loc=/ok', 'svc.example', 'kept'],
      ['/ok', 'svc.example', 'kept'],
    ]);
    seen.length = 0;
    const absolute = `http://127.0.0.1:${server.port}/ok`;
    await probe(`/redirect?loc=${encodeURIComponent(absolute)}`, { headers });
    assert.deepEqual(seen[1]!.headers['host'], `127.0.0.1:${server.port}`);
    assert.equal(seen[1]!.headers['x-probe'], 'kept');
  });

  it('does not follow a redirect to another host: success with a ProbeWarning text', async () => {
    const loc = `http://127.0.0.2:${other.port}/`;
    assert.deepEqual(await probe(`/redirect?loc=${encodeURIComponent(loc)}`), {
      verdict: 'warning',
      output: 'Probe terminated redirects, Response body: <a href="elsewhere">Found</a>.',
    });
  });

  it('stops after 10 redirects', async () => {
    assert.deepEqual(await probe('/loop'), { verdict: 'failure', output: 'Get "/loop": stopped after 10 redirects' });
  });

  it('reads at most 10 KiB of a body', async () => {
    const r = await probe('/big');
    assert.equal(r.verdict, 'success');
    assert.equal(r.output.length, 10 * 1024);
  });

  it('fails with Go-style text when the connection is refused', async () => {
    const port = await freePort();
    assert.deepEqual(await probe('/ok', { port }), {
      verdict: 'failure',
      output: `Get "http://127.0.0.1:${port}/ok": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    });
  });

  it('fails when the server does not answer within the timeout', async () => {
    assert.deepEqual(await probe('/hang', { timeoutMs: 100 }), {
      verdict: 'failure',
      output: `Get "http://127.0.0.1:${server.port}/hang": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    });
  });

  it('fails when the body does not end within the timeout', async () => {
    // A ProbeError in state failure: the prober reports its message as the failure's output.
    await assert.rejects(probe('/slow-body', { timeoutMs: 150 }), (e: unknown) => {
      assert.ok(e instanceof ProbeError);
      assert.equal(e.message, 'context deadline exceeded (Client.Timeout or context cancellation while reading body)');
      return true;
    });
  });

  it('times out each probe on its own: one timed out leaves the next one unharmed', async () => {
    const [hung, fine] = await Promise.all([probe('/hang', { timeoutMs: 100 }), probe('/ok', { timeoutMs: 5000 })]);
    assert.equal(hung.verdict, 'failure');
    assert.deepEqual(fine, { verdict: 'success', output: 'fine' });
  });

  it('talks HTTPS without verifying the certificate', async () => {
    assert.deepEqual(await probe('/', { port: tls.port, scheme: 'HTTPS' }), { verdict: 'success', output: 'secure' });
  });

  it('fails for HTTPS against a plain HTTP server', async () => {
    const r = await probe('/ok', { scheme: 'HTTPS' });
    assert.equal(r.verdict, 'failure');
    assert.match(r.output, new RegExp(`^Get "https://127\\.0\\.0\\.1:${server.port}/ok": `));
  });

  it('errors (no verdict) for an unsupported scheme or a URL it cannot parse', async () => {
    const r = await probe('/ok', { scheme: 'ftp' });
    assert.deepEqual(r, { verdict: 'failure', output: `Get "ftp://127.0.0.1:${server.port}/ok": unsupported protocol scheme "ftp"` });
    await assert.rejects(httpProbe({ request: { url: 'http://[bad', headers: new Map() }, timeoutMs: 100 }), (e: unknown) => e instanceof ProbeError);
  });
});
