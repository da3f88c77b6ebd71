#!/usr/bin/env node
// hello: the example app of k8ts's walkthrough (examples/hello.yaml runs it).
//
// One file, Node.js built-ins only. Two modes:
//
//   hello                          serve HTTP on $POD_IP (0.0.0.0 when unset), port $PORT (8080)
//   hello readiness fail|pass      ask the server of this pod to fail or pass its readiness probe
//   hello liveness fail            ask the server of this pod to fail its liveness probe from now on
//
// The server's endpoints:
//
//   GET  /                 200 "hello from <POD_NAME or the host name>"
//   GET  /healthz          200 "ok", or 500 once liveness was failed   (the livenessProbe: the kubelet restarts the container)
//   GET  /readyz           200 "ok", or 503 while readiness is failed  (the readinessProbe: the pod leaves the Service's endpoints)
//   POST /readiness/fail   /readyz answers 503 from now on
//   POST /readiness/pass   /readyz answers 200 again
//   POST /liveness/fail    /healthz answers 500 from now on (a restarted container starts healthy)
//
// On SIGTERM (what the kubelet sends when the pod is deleted) it stops accepting
// connections, lets the requests in flight finish, and exits 0.
//
// CommonJS (examples/hello/package.json says so), not an ES module: Node starts
// it ~10% faster and answers each probe in ~2/3 of the CPU, which counts when
// thirty replicas start at once on a laptop.
'use strict';
const { request, createServer } = require('node:http');
const { hostname } = require('node:os');

const port = Number(process.env.PORT || 8080);
const name = process.env.POD_NAME || hostname();

function log(message) {
  process.stdout.write(`${new Date().toISOString()} ${message}\n`);
}

function serve() {
  const host = process.env.POD_IP || '0.0.0.0';
  let ready = true;
  let alive = true;
  let stopping = false;

  const answer = (res, status, body) => {
    if (stopping) res.setHeader('connection', 'close');
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(body);
  };

  const routes = {
    'GET /': (res) => answer(res, 200, `hello from ${name}\n`),
    'GET /healthz': (res) => (alive ? answer(res, 200, 'ok') : answer(res, 500, 'liveness failed\n')),
    'GET /readyz': (res) => (ready ? answer(res, 200, 'ok') : answer(res, 503, 'readiness failed\n')),
    'POST /readiness/fail': (res) => {
      if (ready) log('readiness: fail (/readyz answers 503)');
      ready = false;
      answer(res, 200, 'readiness failed\n');
    },
    'POST /readiness/pass': (res) => {
      if (!ready) log('readiness: pass (/readyz answers 200)');
      ready = true;
      answer(res, 200, 'readiness passed\n');
    },
    'POST /liveness/fail': (res) => {
      if (alive) log('liveness: fail (/healthz answers 500)');
      alive = false;
      answer(res, 200, 'liveness failed\n');
    },
  };

  const server = createServer((req, res) => {
    const path = (req.url || '/').split('?')[0];
    const route = routes[`${req.method} ${path}`];
    if (route) return route(res);
    const known = Object.keys(routes).some((r) => r.endsWith(` ${path}`));
    answer(res, known ? 405 : 404, known ? 'method not allowed\n' : 'not found\n');
  });
  // Once stopping, a keep-alive connection is closed as soon as its response is sent.
  server.on('request', (_req, res) => res.on('finish', () => stopping && server.closeIdleConnections()));

  server.on('error', (e) => {
    log(`cannot serve on ${host}:${port}: ${e.message}`);
    process.exit(1);
  });
  server.listen(port, host, () => log(`hello ${name}: listening on ${host}:${server.address().port}`));

  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping (finishing the requests in flight)`);
    server.close(() => {
      log('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const COMMANDS = {
  'readiness fail': '/readiness/fail',
  'readiness pass': '/readiness/pass',
  'liveness fail': '/liveness/fail',
};

/** Client mode: POST to the server of this pod; exit 0 on 200, else say why and exit 1. */
function client(args) {
  const path = COMMANDS[args.join(' ')];
  if (!path) {
    process.stderr.write(`usage: hello [readiness fail | readiness pass | liveness fail]\n`);
    process.exit(2);
  }
  const host = process.env.POD_IP || '127.0.0.1';
  const target = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  const req = request(target, { method: 'POST', timeout: 5000 }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => {
      if (res.statusCode === 200) {
        process.stdout.write(body);
        process.exit(0);
      }
      process.stderr.write(`POST ${target}: ${res.statusCode} ${body}`.trimEnd() + '\n');
      process.exit(1);
    });
  });
  req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
  req.on('error', (e) => {
    process.stderr.write(`POST ${target}: ${e.message}\n`);
    process.exit(1);
  });
  req.end();
}

const args = process.argv.slice(2);
if (args.length === 0) serve();
else client(args);
