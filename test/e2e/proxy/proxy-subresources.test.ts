/**
 * pods/proxy, services/proxy and nodes/proxy end to end: real kubectl
 * (`get --raw`, `create --raw`, `kubectl proxy`) and raw HTTPS → the real API
 * server → a pod's HTTP server on its process-runtime address, a Service's
 * ready endpoint, and the node's kubelet server.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as connectHttp2 } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import type { RestConfig } from '../../../src/client/rest/rest-config.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { NODE_NAME, runPod, startStreamingCluster, waitFor, type StreamingCluster } from '../kubelet/streaming-cluster.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';

/**
 * The pod's server: /big streams 8 MiB; /held sends a first line and ends only
 * once /release is asked; anything else answers what it was asked, as JSON.
 */
const WS_MODULE = createRequire(import.meta.url).resolve('ws');
const SERVER_SCRIPT = `
const http = require('http');
const { WebSocketServer } = require(${JSON.stringify(WS_MODULE)});
const wss = new WebSocketServer({ noServer: true });
wss.on('connection', (ws, req) => ws.on('message', (m) => ws.send('echo ' + req.url + ': ' + m)));
let held = [];
const server = http.createServer((req, res) => {
  if (req.url === '/big') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(65536, 97);
    let n = 0;
    const more = () => { while (n < 128) { n++; if (!res.write(chunk)) return res.once('drain', more); } res.end(); };
    return more();
  }
  if (req.url === '/held') { res.writeHead(200, { 'content-type': 'text/plain' }); res.write('first\\n'); held.push(res); return; }
  if (req.url === '/release') { for (const r of held) r.end('last\\n'); held = []; res.end('released'); return; }
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-backend': 'pod' });
    res.end(JSON.stringify({ method: req.method, url: req.url, body, authorization: req.headers.authorization || '', forwardedFor: req.headers['x-forwarded-for'] || '' }));
  });
});
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
server.listen(8080, process.env.POD_IP);`;

interface Echo {
  method: string;
  url: string;
  body: string;
  authorization: string;
  forwardedFor: string;
}

interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Everything a response (or an HTTP/2 stream) still has to say, as text. */
function readBody(res: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
}

describe('proxy subresources: pods/proxy, services/proxy, nodes/proxy', { timeout: 180_000 }, () => {
  let cluster: StreamingCluster;
  let kubectl: Kubectl;
  let admin: RestConfig;
  let podIP = '';
  const children: ChildProcess[] = [];

  /** One request to the API server as the admin, over HTTP/1.1. */
  const raw = (method: string, path: string, body?: string): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, admin.server);
      const req = httpsRequest(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method,
          // Node's client does not frame a DELETE or OPTIONS body by itself.
          headers: body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {},
          ca: admin.ca,
          cert: admin.clientCert,
          key: admin.clientKey,
          agent: false,
        },
        (res) => readBody(res).then((body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }), reject),
      );
      req.on('error', reject);
      req.end(body);
    });

  const echo = async (path: string): Promise<Echo> => JSON.parse(await kubectl.ok('get', '--raw', path)) as Echo;

  before(async () => {
    cluster = await startStreamingCluster('apiproxy', '127.244.203.0/24');
    kubectl = newKubectl('1.33', cluster.kubeconfig);
    admin = restConfigFromKubeconfig(cluster.kubeconfig);
    ({ podIP } = await runPod(cluster, 'web', [{ name: 'server', command: [process.execPath, '-e', SERVER_SCRIPT], ports: [{ name: 'http', containerPort: 8080 }] }]));
    await waitFor(async () => (await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/ready')).code === 0, 'the pod server to answer through the proxy');
  });
  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await cluster?.stop();
  });

  it('pods/NAME:PORT/proxy/PATH reaches the pod, with the query, and without the client’s credentials', async () => {
    const e = await echo('/api/v1/namespaces/default/pods/web:8080/proxy/hello/world?x=1&y=two');
    assert.equal(e.method, 'GET');
    assert.equal(e.url, '/hello/world?x=1&y=two');
    assert.equal(e.authorization, '');
    assert.notEqual(e.forwardedFor, '');
  });

  it('takes the port by container port name, by default the first declared one, and the http: scheme prefix', async () => {
    assert.equal((await echo('/api/v1/namespaces/default/pods/web:http/proxy/named')).url, '/named');
    assert.equal((await echo('/api/v1/namespaces/default/pods/web/proxy/default-port')).url, '/default-port');
    assert.equal((await echo('/api/v1/namespaces/default/pods/http:web:8080/proxy/scheme')).url, '/scheme');
  });

  it('reads ?path= when the URL has no path, keeps a trailing slash, and redirects the bare root to its slash', async () => {
    assert.equal((await raw('GET', '/api/v1/namespaces/default/pods/web:8080/proxy?path=/from-query')).status, 200);
    assert.equal(JSON.parse((await raw('GET', '/api/v1/namespaces/default/pods/web:8080/proxy?path=/from-query')).body).url, '/from-query?path=/from-query');
    assert.equal((await echo('/api/v1/namespaces/default/pods/web:8080/proxy/dir/')).url, '/dir/');
    const root = await raw('GET', '/api/v1/namespaces/default/pods/web:8080/proxy');
    assert.equal(root.status, 301);
    assert.equal(root.headers.location, '/api/v1/namespaces/default/pods/web:8080/proxy/');
    assert.equal((await echo('/api/v1/namespaces/default/pods/web:8080/proxy')).url, '/');
  });

  it('forwards every connect method with its body: POST, PUT, PATCH, DELETE, HEAD, OPTIONS', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const r = await raw(method, '/api/v1/namespaces/default/pods/web:8080/proxy/m?q=1', `body of ${method}`);
      assert.equal(r.status, 200, `${method}: ${r.body}`);
      assert.equal(r.headers['x-backend'], 'pod');
      assert.deepEqual(JSON.parse(r.body), { method, url: '/m?q=1', body: `body of ${method}`, authorization: '', forwardedFor: JSON.parse(r.body).forwardedFor });
    }
    // Over HTTP/2 (kubectl's protocol) a body need not state its length.
    const session = connectHttp2(admin.server, { ca: admin.ca, cert: admin.clientCert, key: admin.clientKey });
    try {
      for (const method of ['DELETE', 'OPTIONS', 'POST']) {
        const stream = session.request({ ':method': method, ':path': '/api/v1/namespaces/default/pods/web:8080/proxy/h2' }, { endStream: false });
        stream.end(`h2 ${method}`);
        const text = await readBody(stream);
        assert.equal((JSON.parse(text) as Echo).body, `h2 ${method}`, text);
      }
    } finally {
      session.close();
    }
    const head = await raw('HEAD', '/api/v1/namespaces/default/pods/web:8080/proxy/m');
    assert.equal(head.status, 200);
    assert.equal(head.headers['x-backend'], 'pod');
    assert.equal(head.body, '');
    // kubectl's own writers go the same way.
    const file = join(cluster.root, 'body.json');
    await writeFile(file, '{"hello":"pod"}');
    const created = JSON.parse(await kubectl.ok('create', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/submit', '-f', file)) as Echo;
    assert.equal(created.method, 'POST');
    assert.equal(created.body, '{"hello":"pod"}');
  });

  it('streams the answer: 8 MiB arrive whole, and a first line arrives while the pod still holds the rest', async () => {
    const big = await raw('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/big');
    assert.equal(big.status, 200);
    assert.equal(big.body.length, 8 * 1024 * 1024);
    const url = new URL('/api/v1/namespaces/default/pods/web:8080/proxy/held', admin.server);
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: url.hostname, port: url.port, path: url.pathname, ca: admin.ca, cert: admin.clientCert, key: admin.clientKey, agent: false }, (res) => {
        let got = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          got += c;
          // Only once the first line came through is the pod told to finish.
          if (got === 'first\n') void raw('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/release');
        });
        res.on('end', () => resolve(got));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(text, 'first\nlast\n');
  });

  it('passes a WebSocket upgrade through to the pod', async () => {
    const url = new URL('/api/v1/namespaces/default/pods/web:8080/proxy/ws', admin.server);
    url.protocol = 'wss:';
    const ws = new WebSocket(url, { ca: admin.ca, cert: admin.clientCert, key: admin.clientKey });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        ws.once('open', () => ws.send('ping'));
        ws.once('message', (data: Buffer) => resolve(data.toString()));
        ws.once('error', reject);
      });
      assert.equal(answer, 'echo /ws: ping');
    } finally {
      ws.terminate();
    }
  });

  it('answers upstream’s errors as Status objects', async () => {
    await runPod(cluster, 'pending', [{ name: 'main', command: ['true'] }], '');
    const cases: [string, number, string, RegExp][] = [
      ['/api/v1/namespaces/default/pods/nope:8080/proxy/', 404, 'NotFound', /^pods "nope" not found$/],
      ['/api/v1/namespaces/default/pods/pending:8080/proxy/', 400, 'BadRequest', /^address not allowed$/],
      ['/api/v1/namespaces/default/pods/a:b:c:d/proxy/', 400, 'BadRequest', /^invalid pod request "a:b:c:d"$/],
      ['/api/v1/namespaces/default/pods/ftp:web:21/proxy/', 400, 'BadRequest', /^invalid pod request "ftp:web:21"$/],
      ['/api/v1/namespaces/default/pods/web:nope/proxy/', 503, 'ServiceUnavailable', /^error trying to reach service: dial tcp: lookup tcp\/nope: unknown port$/],
      ['/api/v1/namespaces/default/pods/web:9/proxy/', 503, 'ServiceUnavailable', new RegExp(`^error trying to reach service: dial tcp ${podIP.replace(/\./g, '\\.')}:9: connect: connection refused$`)],
    ];
    for (const [path, code, reason, message] of cases) {
      const r = await raw('GET', path);
      assert.equal(r.status, code, `${path}: ${r.body}`);
      const status = JSON.parse(r.body) as { kind: string; code: number; reason: string; message: string };
      assert.equal(status.kind, 'Status', path);
      assert.equal(status.code, code, path);
      assert.equal(status.reason, reason, path);
      assert.match(status.message, message, path);
    }
    const k = await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/web:9/proxy/');
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, /Error from server \(ServiceUnavailable\): error trying to reach service: dial tcp .*:9: connect: connection refused/);
  });

  it('services/NAME:PORT/proxy reaches a ready endpoint by port name or number, and is 503 without one', async () => {
    const create = async (resource: string, object: object): Promise<void> => {
      const file = join(cluster.root, `${resource}-${Date.now()}.json`);
      await writeFile(file, JSON.stringify(object));
      await kubectl.ok('create', '-f', file);
    };
    await create('service', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
    await create('slice', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [podIP], conditions: { ready: true } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    });
    assert.equal((await echo('/api/v1/namespaces/default/services/web:http/proxy/svc')).url, '/svc');
    assert.equal((await echo('/api/v1/namespaces/default/services/web:80/proxy/svc-number')).url, '/svc-number');
    assert.equal((await echo('/api/v1/namespaces/default/services/http:web:http/proxy/svc-scheme')).url, '/svc-scheme');

    await create('lonely', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lonely', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } });
    const none = await kubectl('get', '--raw', '/api/v1/namespaces/default/services/lonely:http/proxy/');
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /Error from server \(ServiceUnavailable\): no endpoints available for service "lonely"/);
    const port = await raw('GET', '/api/v1/namespaces/default/services/web:81/proxy/');
    assert.equal(port.status, 503);
    assert.equal((JSON.parse(port.body) as { message: string }).message, 'no service port 81 found for service "web"');
    const missing = await raw('GET', '/api/v1/namespaces/default/services/nope/proxy/');
    assert.equal(missing.status, 404);
  });

  it('nodes/NODE/proxy/PATH reaches the kubelet’s HTTPS server: healthz, pods, metrics', async () => {
    assert.equal(await kubectl.ok('get', '--raw', `/api/v1/nodes/${NODE_NAME}/proxy/healthz`), 'ok');
    const pods = JSON.parse(await kubectl.ok('get', '--raw', `/api/v1/nodes/${NODE_NAME}/proxy/pods`)) as { kind: string; items: KubeObject[] };
    assert.equal(pods.kind, 'PodList');
    assert.ok(pods.items.some((p) => p.metadata.name === 'web'));
    assert.match(await kubectl.ok('get', '--raw', `/api/v1/nodes/${NODE_NAME}/proxy/metrics`), /# kubelet metrics/);
    assert.equal((await raw('HEAD', `/api/v1/nodes/${NODE_NAME}/proxy/healthz`)).status, 200);
    const unknown = await raw('GET', `/api/v1/nodes/${NODE_NAME}/proxy/nothing-here`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body, '404 page not found\n');
    const missing = await kubectl('get', '--raw', '/api/v1/nodes/no-such-node/proxy/healthz');
    assert.match(missing.stderr, /nodes "no-such-node" not found/);
  });

  it('authorizes each method as its verb on the proxy subresource (RBAC)', async () => {
    const file = join(cluster.root, 'rbac.json');
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'proxy-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] }] },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'proxy-reader', namespace: 'default' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'proxy-reader' },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }],
          },
        ],
      }),
    );
    await kubectl.ok('create', '-f', file);
    assert.equal(JSON.parse(await kubectl.ok('--as=jane', 'get', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/jane')).url, '/jane');
    const body = join(cluster.root, 'jane.json');
    await writeFile(body, '{}');
    const post = await kubectl('--as=jane', 'create', '--raw', '/api/v1/namespaces/default/pods/web:8080/proxy/jane', '-f', body);
    assert.notEqual(post.code, 0);
    assert.match(post.stderr, /pods "web:8080" is forbidden: User "jane" cannot create resource "pods\/proxy" in API group "" in the namespace "default"/);
    const svc = await kubectl('--as=jane', 'get', '--raw', '/api/v1/namespaces/default/services/web:http/proxy/');
    assert.match(svc.stderr, /cannot get resource "services\/proxy"/);
  });

  it('kubectl proxy, then plain HTTP through it, reaches pods, services and the kubelet', async () => {
    const child = spawn(kubectl.binary, ['proxy', '--port=0'], { env: kubectl.env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await waitFor(async () => /Starting to serve on 127\.0\.0\.1:(\d+)/.test(output), () => `kubectl proxy to start (${output})`);
    const port = Number(/Starting to serve on 127\.0\.0\.1:(\d+)/.exec(output)![1]);
    const plain = (method: string, path: string, body?: string): Promise<RawResponse> =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, method, agent: false }, (res) =>
          readBody(res).then((body) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }), reject),
        );
        req.on('error', reject);
        req.end(body);
      });
    const got = await plain('GET', '/api/v1/namespaces/default/pods/web:8080/proxy/through?k=v');
    assert.equal(got.status, 200, got.body);
    assert.equal((JSON.parse(got.body) as Echo).url, '/through?k=v');
    const posted = await plain('POST', '/api/v1/namespaces/default/services/web:http/proxy/form', 'a=1');
    assert.equal(posted.status, 200, posted.body);
    assert.deepEqual([(JSON.parse(posted.body) as Echo).method, (JSON.parse(posted.body) as Echo).body], ['POST', 'a=1']);
    const healthz = await plain('GET', `/api/v1/nodes/${NODE_NAME}/proxy/healthz`);
    assert.deepEqual([healthz.status, healthz.body], [200, 'ok']);
    child.kill('SIGTERM');
  });
});
