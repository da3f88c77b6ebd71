/**
 * `k8ts apiserver --workers 3`: one API server in three processes on one port
 * and one sqlite store. Connections are spread over the processes; a watch in
 * one process sees writes made in the others, a consistent list in one sees
 * what another just wrote, compare-and-swap holds across them; a worker that
 * dies is started again; SIGTERM stops them all.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../src/client/testing/wait-for.js';
import { ApiClient } from './testing/api-client.js';
import { K8TS_BIN, startK8ts, type K8tsProcess } from './testing/k8ts-process.js';

/** Pids of the processes holding established connections on the port. */
function pidsServing(port: number): Set<number> {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  return new Set([...out.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])));
}

/** The primary's worker processes (its children), from /proc. */
function workerPids(primary: number): number[] {
  const text = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8');
  return text.trim().split(/\s+/).filter((s) => s !== '').map(Number);
}

const readyLines = (output: string): number => output.split('\n').filter((l) => l.includes('"API server worker ready"')).length;

describe('k8ts apiserver --workers', () => {
  let dir: string;
  let server: K8tsProcess;
  let url: string;
  let port: number;
  const clients: ApiClient[] = [];
  const client = (): ApiClient => {
    const c = new ApiClient(url, join(dir, 'pki'));
    clients.push(c);
    return c;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-workers-'));
    server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1', '--workers', '3']);
    const line = await server.waitForLine(/^apiserver: serving on /, 60_000);
    url = line.replace(/^apiserver: serving on /, '').trim();
    port = Number(new URL(url).port);
    await waitFor(() => readyLines(server.output()) >= 2, { timeoutMs: 60_000, description: 'two workers ready' });
  });
  after(async () => {
    for (const c of clients) c.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('spreads connections over the primary and its workers, which share one store', async () => {
    const primary = server.child.pid!;
    const workers = workerPids(primary);
    assert.equal(workers.length, 2);
    // The primary was started without V8 flags; its workers get the API server's (apiserver-v8-flags.ts).
    for (const pid of workers) assert.ok(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--max-semi-space-size=32'));
    const conns = Array.from({ length: 6 }, client);
    for (const c of conns) assert.equal((await c.request('GET', '/version')).status, 200);
    const serving = pidsServing(port);
    assert.deepEqual([...serving].sort(), [primary, ...workers].sort(), 'each process serves connections');

    const ns = (await conns[0]!.request('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'spread' } }) }));
    assert.equal(ns.status, 201, ns.text);
    const list0 = JSON.parse((await conns[0]!.request('GET', '/api/v1/namespaces/spread/configmaps')).text) as { metadata: { resourceVersion: string } };
    const watch = await conns[0]!.watch(`/api/v1/namespaces/spread/configmaps?watch=true&resourceVersion=${list0.metadata.resourceVersion}`);
    assert.equal(watch.status, 200);
    // A create through each connection, then a consistent list through the next one sees it at once.
    for (let i = 0; i < conns.length; i++) {
      const name = `cm-${i}`;
      const created = await conns[i]!.request('POST', '/api/v1/namespaces/spread/configmaps', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }),
      });
      assert.equal(created.status, 201, created.text);
      const next = conns[(i + 1) % conns.length]!;
      const listed = JSON.parse((await next.request('GET', '/api/v1/namespaces/spread/configmaps')).text) as { items: { metadata: { name: string } }[] };
      assert.ok(listed.items.some((item) => item.metadata.name === name), `a list through connection ${(i + 1) % conns.length} sees ${name}`);
    }
    // The watch (in one process) sees every create (made in all three), in resourceVersion order.
    await waitFor(() => watch.lines.length >= 6, { timeoutMs: 30_000, description: 'six watch events' });
    const events = watch.lines.map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string; resourceVersion: string } } });
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), conns.map((_, i) => ['ADDED', `cm-${i}`]));
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b));

    // Compare-and-swap across processes: two updates from one resourceVersion, through two processes: one wins.
    const current = JSON.parse((await conns[0]!.request('GET', '/api/v1/namespaces/spread/configmaps/cm-0')).text) as Record<string, unknown>;
    const answers = await Promise.all(
      [conns[1]!, conns[2]!].map((c, i) => c.request('PUT', '/api/v1/namespaces/spread/configmaps/cm-0', { body: JSON.stringify({ ...current, data: { by: String(i) } }) })),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
  });

  it('starts a worker that dies again, and keeps serving meanwhile', async () => {
    const primary = server.child.pid!;
    const [victim] = workerPids(primary);
    const before = readyLines(server.output());
    process.kill(victim!, 'SIGKILL');
    // New connections are served while the worker is gone …
    for (let i = 0; i < 3; i++) assert.equal((await client().request('GET', '/api/v1/namespaces/default')).status, 200);
    // … and it comes back: a new process, ready, and given connections again.
    await waitFor(() => readyLines(server.output()) > before, { timeoutMs: 30_000, description: 'the worker started again' });
    const workers = workerPids(primary);
    assert.equal(workers.length, 2);
    assert.ok(!workers.includes(victim!));
    const conns = Array.from({ length: 6 }, client);
    for (const c of conns) assert.equal((await c.request('GET', '/api/v1/namespaces/default')).status, 200);
    const serving = pidsServing(port);
    for (const w of workers) assert.ok(serving.has(w), `worker ${w} serves connections`);
  });

  it('stops every process on SIGTERM, workers first, and exits 0', async () => {
    const workers = workerPids(server.child.pid!);
    assert.equal(await server.stop('SIGTERM', 30_000), 0);
    assert.match(server.output(), /apiserver: stopped/);
    for (const w of workers) assert.ok(!existsSync(`/proc/${w}`), `worker ${w} has exited`);
  });
});

describe('k8ts apiserver --workers flag', () => {
  it('refuses a count that is not a whole number from 1 to 64', () => {
    for (const bad of ['0', '-1', 'two', '65']) {
      const run = spawnSync(process.execPath, [K8TS_BIN, 'apiserver', '--workers', bad], { encoding: 'utf8', timeout: 30_000 });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /--workers must be a whole number from 1 to 64/);
    }
  });
});
