import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isNotFound, StatusError } from '../../machinery/status.js';
import { isRetriableConnectionError, retryAfterSeconds, statusErrorFromBody, tlsOptions, Transport } from './transport.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A local server answering each request with the next scripted handler. */
async function scriptedServer(): Promise<{ server: Server; url: string; script: Handler[]; seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] }> {
  const script: Handler[] = [];
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const next = script.shift();
      if (next === undefined) {
        res.writeHead(500).end('no script');
        return;
      }
      next(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, script, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) =>
  void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const hangUp: Handler = (req) => req.socket.destroy();

describe('Transport', () => {
  let s: Awaited<ReturnType<typeof scriptedServer>>;
  const slept: number[] = [];
  let transport: Transport;
  before(async () => {
    s = await scriptedServer();
    transport = new Transport({ server: s.url, token: 'tok', userAgent: 'k8ts/test (unit)', retryDelayMs: 10 }, { sleep: async (ms) => void slept.push(ms) });
  });
  after(() => {
    transport.close();
    s.server.close();
  });
  const reset = (): void => {
    slept.length = 0;
    s.seen.length = 0;
    s.script.length = 0;
  };

  it('sends the token, user agent and body', async () => {
    reset();
    s.script.push(json(201, { ok: true }));
    const res = await transport.request({ method: 'POST', path: '/api/v1/x?a=1', body: '{"b":2}', contentType: 'application/merge-patch+json' });
    assert.deepEqual(res, { status: 201, body: '{"ok":true}' });
    assert.equal(s.seen[0]!.url, '/api/v1/x?a=1');
    assert.equal(s.seen[0]!.headers['authorization'], 'Bearer tok');
    assert.equal(s.seen[0]!.headers['user-agent'], 'k8ts/test (unit)');
    assert.equal(s.seen[0]!.headers['content-type'], 'application/merge-patch+json');
    assert.equal(s.seen[0]!.body, '{"b":2}');
  });

  it('retries a 429 after its Retry-After seconds, then succeeds', async () => {
    reset();
    s.script.push(json(429, { kind: 'Status', code: 429 }, { 'retry-after': '3' }), json(429, {}, {}), json(200, { ok: 1 }));
    const res = await transport.request({ method: 'POST', path: '/x', body: '{}' });
    assert.equal(res.status, 200);
    assert.deepEqual(slept, [3000, 20]);
    assert.equal(s.seen.length, 3);
  });

  it('retries a 503 only with Retry-After', async () => {
    reset();
    s.script.push(json(503, {}, { 'retry-after': '1' }), json(200, {}));
    assert.equal((await transport.request({ method: 'GET', path: '/x' })).status, 200);
    assert.deepEqual(slept, [1000]);
    reset();
    s.script.push(json(503, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable', message: 'down' }));
    await assert.rejects(transport.request({ method: 'GET', path: '/x' }), (e: unknown) => e instanceof StatusError && e.code === 503 && e.message === 'down');
    assert.deepEqual(slept, []);
  });

  it('gives up on 429 after maxRetries with the last StatusError', async () => {
    const limited = new Transport({ server: s.url, maxRetries: 2 }, { sleep: async () => {} });
    reset();
    for (let i = 0; i < 3; i++) s.script.push(json(429, { kind: 'Status', code: 429, reason: 'TooManyRequests', message: `busy ${i}` }, { 'retry-after': '1' }));
    await assert.rejects(limited.request({ method: 'GET', path: '/x' }), /busy 2/);
    assert.equal(s.seen.length, 3);
    limited.close();
  });

  it('retries a GET whose connection was closed, but not a POST that was sent', async () => {
    reset();
    s.script.push(hangUp, json(200, { ok: 1 }));
    assert.equal((await transport.request({ method: 'GET', path: '/x' })).status, 200);
    assert.deepEqual(slept, [10]);
    reset();
    s.script.push(hangUp, json(200, {}));
    await assert.rejects(transport.request({ method: 'POST', path: '/x', body: '{}' }), (e: unknown) => e instanceof StatusError && e.code === 503 && e.cause !== undefined);
    assert.equal(s.seen.length, 1);
    s.script.length = 0;
  });

  it('retries even a POST when the connection is refused, then fails with 503 and the cause', async () => {
    const closed = await scriptedServer();
    const url = closed.url;
    await new Promise((r) => closed.server.close(r));
    const delays: number[] = [];
    const t = new Transport({ server: url, maxRetries: 3, retryDelayMs: 100, maxRetryDelayMs: 250 }, { sleep: async (ms) => void delays.push(ms) });
    const error = await t.request({ method: 'POST', path: '/x', body: '{}' }).catch((e: unknown) => e);
    assert.ok(error instanceof StatusError);
    assert.equal(error.code, 503);
    assert.match(error.message, /cannot reach the API server at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    assert.equal((error.cause as { code?: string }).code, 'ECONNREFUSED');
    assert.deepEqual(delays, [100, 200, 250]);
    t.close();
  });

  it('rebuilds a StatusError from the Status body, or from the text of another body', async () => {
    reset();
    s.script.push(json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'pods "a" not found', details: { name: 'a', kind: 'pods' } }));
    const e = await transport.request({ method: 'GET', path: '/x' }).catch((err: unknown) => err);
    assert.ok(isNotFound(e));
    assert.equal((e as StatusError).message, 'pods "a" not found');
    reset();
    s.script.push((_q, res) => void res.writeHead(502).end('bad gateway\n'));
    await assert.rejects(transport.request({ method: 'GET', path: '/x' }), (err: unknown) => err instanceof StatusError && err.code === 502 && err.message === 'bad gateway');
  });

  it('streams a 2xx body and rejects a failed one', async () => {
    reset();
    s.script.push((_q, res) => {
      res.writeHead(200);
      res.write('a');
      res.end('b');
    });
    const res = await transport.stream({ method: 'GET', path: '/w' });
    let text = '';
    for await (const c of res) text += String(c);
    assert.equal(text, 'ab');
    s.script.push(json(410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }));
    await assert.rejects(transport.stream({ method: 'GET', path: '/w' }), /too old resource version/);
  });
});

describe('Transport rate limiting', () => {
  it('takes a token of the bucket for every request, a retry included', async () => {
    const s = await scriptedServer();
    const delays: number[] = [];
    const t = new Transport({ server: s.url, qps: 2, burst: 1 }, { now: () => 0, sleep: async (ms) => void delays.push(ms) });
    s.script.push(json(200, {}), json(429, {}, { 'retry-after': '0' }), json(200, {}));
    await t.request({ method: 'GET', path: '/a' });
    await t.request({ method: 'GET', path: '/b' });
    // second request: 500 ms for its token; its retry: 0 s Retry-After, then 1000 ms for the next token.
    assert.deepEqual(delays, [500, 0, 1000]);
    t.close();
    s.server.close();
  });
});

describe('transport helpers', () => {
  it('classifies connection errors by verb', () => {
    const err = (code: string): Error => Object.assign(new Error(code), { code });
    assert.equal(isRetriableConnectionError(err('ECONNREFUSED'), 'POST'), true);
    assert.equal(isRetriableConnectionError(err('ECONNRESET'), 'POST'), false);
    for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) assert.equal(isRetriableConnectionError(err('ECONNRESET'), m), true);
    assert.equal(isRetriableConnectionError(err('DEPTH_ZERO_SELF_SIGNED_CERT'), 'GET'), false);
    assert.equal(isRetriableConnectionError(new Error('x'), 'GET'), false);
  });
  it('reads Retry-After seconds only', () => {
    assert.equal(retryAfterSeconds('5'), 5);
    assert.equal(retryAfterSeconds(undefined), undefined);
    assert.equal(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT'), undefined);
  });
  it('falls back to the code reason for an empty body', () => {
    const e = statusErrorFromBody(409, '');
    assert.equal(e.reason, 'Conflict');
    assert.equal(e.message, 'the server responded with the status code 409');
  });
  it('builds one TLS secure context for all connections, keeping raw options when the PEM does not parse', () => {
    const shared = tlsOptions({ server: 'https://127.0.0.1:1' });
    assert.ok(shared.secureContext !== undefined);
    assert.equal(shared.ca, undefined);
    const raw = tlsOptions({ server: 'https://127.0.0.1:1', clientCert: 'not a certificate', clientKey: 'not a key' });
    assert.equal(raw.secureContext, undefined);
    assert.equal(raw.cert, 'not a certificate');
    assert.equal(raw.key, 'not a key');
  });

  it('refuses a server URL that is not http(s)', () => {
    assert.throws(() => new Transport({ server: 'ftp://x' }), /must be https/);
    assert.throws(() => new Transport({ server: 'nope' }), /invalid server URL "nope"/);
  });
});
