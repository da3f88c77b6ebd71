import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../machinery/meta.js';
import { isResourceExpired, StatusError } from '../../machinery/status.js';
import { newHttpClient, deleteOutcome, type HttpClient } from './http-client.js';
import { CONFIG_MAPS, NODES, PODS } from './resources.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('newHttpClient against a scripted server', () => {
  let server: Server;
  let client: HttpClient;
  const script: Handler[] = [];
  const seen: { method: string; url: string; type: string | undefined; body: string }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, type: req.headers['content-type'], body });
        (script.shift() ?? ((_q, r) => void r.writeHead(500).end('no script')))(req, res, body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    client = newHttpClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxRetries: 0 });
  });
  after(() => {
    client.close();
    server.closeAllConnections();
    server.close();
  });
  const ok = (body: unknown): Handler => (_q, res) => void res.writeHead(200).end(JSON.stringify(body));
  const cm = (name: string, extra: object = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...extra } });

  it('sends each verb to its URL with its query and content type', async () => {
    seen.length = 0;
    const cms = client.resource(CONFIG_MAPS);
    for (let i = 0; i < 12; i++) script.push(ok(cm('a')));
    await cms.get('a', { namespace: 'ns' });
    await cms.list({ namespace: 'ns', labelSelector: 'a=b', fieldSelector: 'metadata.name=a', limit: 2, continue: 'c', resourceVersion: '5', resourceVersionMatch: 'NotOlderThan' });
    await cms.create(cm('a'), { dryRun: true, fieldManager: 'me', fieldValidation: 'Strict' });
    await cms.update(cm('a'));
    await client.resource(PODS).updateStatus({ ...cm('p'), kind: 'Pod' });
    await cms.patch('a', 'json', [{ op: 'add', path: '/data', value: {} }], { namespace: 'ns' });
    await cms.patch('a', 'merge', { data: {} }, { namespace: 'ns' });
    await cms.patch('a', 'strategic', { data: {} }, { namespace: 'ns', subresource: 'status' });
    await cms.patch('a', 'apply', '{"apiVersion":"v1"}', { namespace: 'ns', fieldManager: 'me', force: true });
    await client.resource(NODES).getSubresource('n', 'proxy');
    await client.resource(PODS).createSubresource('p', 'binding', { target: { name: 'n' } }, { namespace: 'ns' });
    await client.resource(PODS).updateSubresource('p', 'ephemeralcontainers', {}, { namespace: 'ns' });
    assert.deepEqual(
      seen.map((s) => `${s.method} ${s.url} ${s.type ?? ''}`.trim()),
      [
        'GET /api/v1/namespaces/ns/configmaps/a',
        'GET /api/v1/namespaces/ns/configmaps?labelSelector=a%3Db&fieldSelector=metadata.name%3Da&limit=2&continue=c&resourceVersion=5&resourceVersionMatch=NotOlderThan',
        'POST /api/v1/namespaces/ns/configmaps?dryRun=All&fieldManager=me&fieldValidation=Strict application/json',
        'PUT /api/v1/namespaces/ns/configmaps/a application/json',
        'PUT /api/v1/namespaces/ns/pods/p/status application/json',
        'PATCH /api/v1/namespaces/ns/configmaps/a application/json-patch+json',
        'PATCH /api/v1/namespaces/ns/configmaps/a application/merge-patch+json',
        'PATCH /api/v1/namespaces/ns/configmaps/a/status application/strategic-merge-patch+json',
        'PATCH /api/v1/namespaces/ns/configmaps/a?fieldManager=me&force=true application/apply-patch+yaml',
        'GET /api/v1/nodes/n/proxy',
        'POST /api/v1/namespaces/ns/pods/p/binding application/json',
        'PUT /api/v1/namespaces/ns/pods/p/ephemeralcontainers application/json',
      ],
    );
    assert.equal(seen[8]!.body, '{"apiVersion":"v1"}');
  });

  it('rejects a namespaced call without a namespace before sending', async () => {
    await assert.rejects(client.resource(CONFIG_MAPS).get('a'), (e: unknown) => e instanceof StatusError && e.code === 400 && /namespace is required for configmaps "a"/.test(e.message));
    await assert.rejects(client.resource(CONFIG_MAPS).update({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns' } }), /needs metadata.name/);
  });

  it('deletes with a DeleteOptions body and tells a marked object from a gone one', async () => {
    seen.length = 0;
    const cms = client.resource(CONFIG_MAPS);
    script.push(ok(cm('a', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['x'] })), ok(cm('a')), ok({ kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 }));
    const marked = await cms.delete('a', { namespace: 'ns', propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { uid: 'u' }, dryRun: true });
    assert.deepEqual(marked?.metadata.finalizers, ['x']);
    assert.equal(await cms.delete('a', { namespace: 'ns' }), undefined);
    assert.equal(await cms.delete('a', { namespace: 'ns' }), undefined);
    const graceful = cm('a', { uid: 'u1', deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 });
    script.push(ok(graceful), ok(graceful));
    assert.equal((await cms.delete('a', { namespace: 'ns' }))?.metadata.uid, 'u1');
    script.push(ok(graceful), (_q, res) => void res.writeHead(404).end(JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' })));
    assert.equal(await cms.delete('a', { namespace: 'ns' }), undefined);
    script.push(ok(graceful), ok(cm('a', { uid: 'u2' })));
    assert.equal(await cms.delete('a', { namespace: 'ns' }), undefined);
    script.push(ok(graceful), (_q, res) => void res.writeHead(403).end('{}'));
    await assert.rejects(cms.delete('a', { namespace: 'ns' }), (e: unknown) => e instanceof StatusError && e.code === 403);
    assert.deepEqual(JSON.parse(seen[0]!.body), {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'u' },
      dryRun: ['All'],
    });
  });

  it('rejects a body that is not JSON', async () => {
    script.push((_q, res) => void res.writeHead(200).end('<html>'));
    await assert.rejects(client.resource(NODES).get('n'), (e: unknown) => e instanceof StatusError && e.code === 500 && /not JSON/.test(e.message));
  });

  it('watches: events split across chunks, in order, until the server ends', async () => {
    seen.length = 0;
    script.push((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = [
        { type: 'ADDED', object: cm('a', { resourceVersion: '2' }) },
        { type: 'MODIFIED', object: cm('a', { resourceVersion: '3' }) },
        { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '4' } } },
        { type: 'DELETED', object: cm('a', { resourceVersion: '5' }) },
      ]
        .map((e) => JSON.stringify(e) + '\n')
        .join('');
      const cut = [0, 7, 60, 61, body.length - 3, body.length];
      let i = 0;
      const next = (): void => {
        if (i + 1 >= cut.length) return void res.end();
        res.write(body.slice(cut[i], cut[i + 1]));
        i++;
        setImmediate(next);
      };
      next();
    });
    const events = [];
    for await (const e of client.resource(CONFIG_MAPS).watch({ namespace: 'ns', resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 30, labelSelector: 'x' })) {
      events.push(`${e.type} ${e.object.metadata.resourceVersion}`);
    }
    assert.deepEqual(events, ['ADDED 2', 'MODIFIED 3', 'BOOKMARK 4', 'DELETED 5']);
    assert.equal(seen[0]!.url, '/api/v1/namespaces/ns/configmaps?watch=true&labelSelector=x&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=30');
  });

  it('watches: an ERROR event throws its Status (410: expired)', async () => {
    script.push((_q, res) => {
      res.writeHead(200);
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a') }) + '\n');
      res.end(JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' } }) + '\n');
    });
    const types: string[] = [];
    const error = await (async () => {
      for await (const e of client.resource(CONFIG_MAPS).watch({ namespace: 'ns', resourceVersion: '1' })) types.push(e.type);
    })().catch((e: unknown) => e);
    assert.deepEqual(types, ['ADDED']);
    assert.ok(isResourceExpired(error));
    assert.equal((error as StatusError).message, 'too old resource version: 1 (5)');
  });

  it('watches: a failed start rejects with its StatusError; a broken stream with a 503', async () => {
    script.push((_q, res) => void res.writeHead(403).end(JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' })));
    await assert.rejects((async () => {
      for await (const _ of client.resource(NODES).watch()) void _;
    })(), (e: unknown) => e instanceof StatusError && e.code === 403);
    script.push((req, res) => {
      res.writeHead(200);
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a') }) + '\n', () => setImmediate(() => req.socket.destroy()));
    });
    await assert.rejects((async () => {
      for await (const _ of client.resource(NODES).watch()) void _;
    })(), (e: unknown) => e instanceof StatusError && e.code === 503 && /the watch broke/.test(e.message));
  });

  it('watches: cancel() ends the iteration quietly, before or during the stream', async () => {
    const early = client.resource(NODES).watch();
    early.cancel();
    for await (const _ of early) assert.fail('no event after cancel');
    script.push((_q, res) => {
      res.writeHead(200);
      res.write(JSON.stringify({ type: 'ADDED', object: cm('a') }) + '\n');
    });
    const stream = client.resource(NODES).watch();
    const got: string[] = [];
    for await (const e of stream) {
      got.push(e.type);
      stream.cancel();
    }
    assert.deepEqual(got, ['ADDED']);
  });
});

describe('deleteOutcome', () => {
  const obj = (meta: object): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', ...meta } });
  it('tells gone, kept by finalizers, and marked with a grace period (to check) apart', () => {
    assert.equal(deleteOutcome({ kind: 'Status', apiVersion: 'v1', metadata: {} }), 'gone');
    assert.equal(deleteOutcome(obj({})), 'gone');
    assert.equal(deleteOutcome(obj({ deletionTimestamp: 't', finalizers: ['f'] })), 'exists');
    assert.equal(deleteOutcome(obj({ deletionTimestamp: 't', deletionGracePeriodSeconds: 30 })), 'check');
    assert.equal(deleteOutcome(obj({ deletionTimestamp: 't', deletionGracePeriodSeconds: 0, finalizers: [] })), 'gone');
  });
});
