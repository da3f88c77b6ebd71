/**
 * The kubelet's own API, called directly as the API server and client
 * libraries do: authentication (client certificates), authorization by
 * SubjectAccessReview against the real API server's RBAC and Node
 * authorizers, and the plain WebSocket protocols of the JavaScript and
 * Python clients (base64 exec channels, portforward channels with their
 * two-byte port prefix).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { runPod, startStreamingCluster, waitFor, type StreamingCluster } from './streaming-cluster.js';

const SERVER_SCRIPT = "require('net').createServer((s) => s.end('hello from pod\\n')).listen(8080, process.env.POD_IP, () => console.log('listening'))";

interface Identity {
  readonly cert: string;
  readonly key: string;
}

describe('the kubelet API', { timeout: 120_000 }, () => {
  let cluster: StreamingCluster;
  let ca: string;
  let apiserver: Identity;
  let scheduler: Identity;

  const get = (path: string, who: Identity | undefined): Promise<{ code: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: cluster.kubelet.port, path, ca, ...(who !== undefined ? { cert: who.cert, key: who.key } : {}), agent: false },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  const messages = (url: string, protocol: string, who: Identity, until: (all: (Buffer | string)[]) => boolean): Promise<{ protocol: string; messages: (Buffer | string)[] }> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`wss://127.0.0.1:${cluster.kubelet.port}${url}`, [protocol], { ca, cert: who.cert, key: who.key });
      const all: (Buffer | string)[] = [];
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        all.push(isBinary ? data : data.toString());
        if (until(all)) {
          ws.close();
          resolve({ protocol: ws.protocol, messages: all });
        }
      });
      ws.on('close', () => resolve({ protocol: ws.protocol, messages: all }));
      ws.on('error', reject);
    });

  before(async () => {
    cluster = await startStreamingCluster('kubelet-api', '127.244.202.0/24');
    ca = readFileSync(cluster.pki.caCert, 'utf8');
    apiserver = { cert: readFileSync(cluster.pki.apiserverKubeletClient.cert, 'utf8'), key: readFileSync(cluster.pki.apiserverKubeletClient.key, 'utf8') };
    scheduler = { cert: readFileSync(cluster.pki.clientCertificates.scheduler.cert, 'utf8'), key: readFileSync(cluster.pki.clientCertificates.scheduler.key, 'utf8') };
    await runPod(cluster, 'web', [
      { name: 'main', command: ['sh', '-c', 'echo ready; exec sleep 3600'] },
      { name: 'server', command: [process.execPath, '-e', SERVER_SCRIPT] },
    ]);
    // The port-forward tests need the server listening: it says so once it is.
    await waitFor(async () => (await get('/containerLogs/default/web/server', apiserver)).body.includes('listening'), 'server to listen');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('answers 401 without a client certificate', async () => {
    assert.deepEqual(await get('/healthz', undefined), { code: 401, body: 'Unauthorized\n' });
  });

  it('asks the API server whether the user may use the node (SubjectAccessReview)', async () => {
    const denied = await get('/containerLogs/default/web/main', scheduler);
    assert.equal(denied.code, 403);
    assert.equal(denied.body, 'Forbidden (user=system:kube-scheduler, verb=get, resource=nodes, subresource=proxy)\n');
    assert.equal((await get('/metrics', scheduler)).body, 'Forbidden (user=system:kube-scheduler, verb=get, resource=nodes, subresource=metrics)\n');
    assert.deepEqual(await get('/healthz', apiserver), { code: 200, body: 'ok' });
    assert.equal((await get('/metrics', apiserver)).body, '# kubelet metrics\n');
    const pods = JSON.parse((await get('/pods', apiserver)).body) as { kind: string; items: { metadata: { name: string } }[] };
    assert.equal(pods.kind, 'PodList');
    assert.deepEqual(pods.items.map((p) => p.metadata.name), ['web']);
  });

  it('serves container logs with the errors upstream gives', async () => {
    assert.deepEqual(await get('/containerLogs/default/web/main', apiserver), { code: 200, body: 'ready\n' });
    assert.deepEqual(await get('/containerLogs/default/nope/main', apiserver), { code: 404, body: 'pod "nope" does not exist\n' });
    assert.equal((await get('/containerLogs/default/web/main?previous=true', apiserver)).body, 'previous terminated container "main" in pod "web" not found\n');
    assert.equal((await get('/containerLogs/default/web/main?tailLines=-1', apiserver)).code, 422);
    assert.equal((await get('/containerLogs/default/web/main?follow=maybe', apiserver)).code, 400);
    assert.equal((await get('/nothing-here', apiserver)).code, 404);
  });

  it('runs exec over the base64 WebSocket protocol with the Status on channel 3', async () => {
    const { protocol, messages: all } = await messages(
      '/exec/default/web/main?command=sh&command=-c&command=echo%20hi%3B%20exit%205&output=1',
      'v4.base64.channel.k8s.io',
      apiserver,
      (m) => m.some((x) => typeof x === 'string' && x.startsWith('3')),
    );
    assert.equal(protocol, 'v4.base64.channel.k8s.io');
    assert.equal(all[0], '1');
    const stdout = all.filter((m): m is string => typeof m === 'string' && m.startsWith('1')).map((m) => Buffer.from(m.slice(1), 'base64').toString()).join('');
    assert.equal(stdout, 'hi\n');
    const status = JSON.parse(Buffer.from((all.find((m) => typeof m === 'string' && m.startsWith('3')) as string).slice(1), 'base64').toString()) as {
      status: string;
      reason: string;
      details: { causes: { reason: string; message: string }[] };
    };
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, 'NonZeroExitCode');
    assert.deepEqual(status.details.causes, [{ reason: 'ExitCode', message: '5' }]);
  });

  it('forwards a port over the plain WebSocket protocol, each channel opening with the port', async () => {
    const { protocol, messages: all } = await messages('/portForward/default/web?port=8080', 'v4.channel.k8s.io', apiserver, (m) =>
      Buffer.concat(m.filter((x): x is Buffer => Buffer.isBuffer(x) && x[0] === 0).map((x) => x.subarray(1))).toString().includes('hello from pod\n'),
    );
    assert.equal(protocol, 'v4.channel.k8s.io');
    const port = Buffer.from([0x90, 0x1f]);
    const channel = (n: number): Buffer[] => all.filter((x): x is Buffer => Buffer.isBuffer(x) && x[0] === n).map((x) => x.subarray(1));
    assert.deepEqual(channel(0)[0], port);
    assert.deepEqual(channel(1)[0], port);
    assert.equal(Buffer.concat(channel(0).slice(1)).toString(), 'hello from pod\n');
  });

  it('refuses a WebSocket subprotocol it does not speak, and a port-forward without ports', async () => {
    await assert.rejects(messages('/exec/default/web/main?command=true&output=1', 'v9.channel.k8s.io', apiserver, () => true), /Unexpected server response: 403/);
    await assert.rejects(messages('/portForward/default/web', 'v4.channel.k8s.io', apiserver, () => true), /Unexpected server response: 400/);
  });
});
