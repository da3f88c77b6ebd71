/**
 * Two `k8ts apiserver` processes on one real etcd hand out Service cluster IPs
 * and node ports without ever giving one out twice: allocation goes through
 * etcd (create-if-absent of one key per IP or port), not through a lock in
 * either process. Also: a requested IP or port another server gave out is
 * refused with upstream's message, and a delete releases what it held.
 *
 * Budget: about 20 s (etcd, two API servers, ~90 requests, two kubectl runs).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEtcd, type EtcdProcess } from '../../src/storage/etcd/testing/etcd-process.js';
import { newEtcdStorage } from '../../src/storage/etcd/etcd-storage.js';
import { startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { newKubectl } from './testing/kubectl.js';

const RANGE = '127.96.0.0/24';
// Requested values come from the start of each range, which dynamic allocation leaves alone
// (upstream's KEP-3070/3668: .1–.16 of a /24, and the first 86 of 30000-32767).
const SERVING = /^apiserver: serving on (https:\/\/\S+:\d+)$/;

interface ServicePort {
  port: number;
  nodePort?: number;
}
interface Service {
  metadata: { name: string; namespace?: string };
  spec: { type?: string; clusterIP?: string; clusterIPs?: string[]; ports?: ServicePort[]; selector?: Record<string, string> };
}
interface Reply<T = unknown> {
  readonly status: number;
  readonly body: T;
}

describe('Service allocation across two API servers on one etcd', { timeout: 180_000 }, () => {
  let etcd: EtcdProcess | undefined;
  let dir: string;
  const servers: { proc: K8tsProcess; url: string }[] = [];
  let tls: { ca: string; cert: string; key: string };
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-svc-alloc-'));
    etcd = await startEtcd();
    const common = ['--secure-port', '0', '--etcd-servers', etcd.endpoint, '--bind-address', '127.0.0.1', '--service-cluster-ip-range', RANGE];
    const first = startK8ts(['apiserver', '--data-dir', join(dir, 'a'), ...common]);
    servers.push({ proc: first, url: '' });
    servers[0] = { proc: first, url: SERVING.exec(await first.waitForLine(SERVING, 60_000))![1]! };
    const pki = join(dir, 'a', 'pki');
    // The second server shares the first one's CA and serving certificate, as API servers behind one address do.
    const second = startK8ts([
      'apiserver',
      '--data-dir',
      join(dir, 'b'),
      ...common,
      '--tls-cert-file',
      join(pki, 'apiserver.crt'),
      '--tls-private-key-file',
      join(pki, 'apiserver.key'),
      '--client-ca-file',
      join(pki, 'ca.crt'),
    ]);
    servers.push({ proc: second, url: '' });
    servers[1] = { proc: second, url: SERVING.exec(await second.waitForLine(SERVING, 60_000))![1]! };
    tls = {
      ca: await readFile(join(pki, 'ca.crt'), 'utf8'),
      cert: await readFile(join(pki, 'admin.crt'), 'utf8'),
      key: await readFile(join(pki, 'admin.key'), 'utf8'),
    };
  });

  after(async () => {
    agent.destroy();
    const failures: unknown[] = [];
    for (const { proc } of servers) {
      try {
        const code = await proc.stop('SIGTERM');
        if (code !== 0) failures.push(new Error(`apiserver exited with ${code}:\n${proc.output()}`));
      } catch (e: unknown) {
        failures.push(e);
      }
    }
    await etcd?.stop();
    await rm(dir, { recursive: true, force: true });
    if (failures.length > 0) throw failures[0];
  });

  /** One request to server `i` as the cluster admin. */
  function call<T = unknown>(i: number, method: string, path: string, body?: unknown): Promise<Reply<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, servers[i]!.url),
        {
          method,
          agent,
          ...tls,
          headers: { accept: 'application/json', ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: (text === '' ? undefined : JSON.parse(text)) as T }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const SERVICES = '/api/v1/namespaces/default/services';
  const nodePortService = (name: string, spec: Partial<Service['spec']> = {}): Service => ({
    metadata: { name },
    spec: { type: 'NodePort', selector: { app: name }, ports: [{ port: 80 }], ...spec },
  });
  const messageOf = (reply: Reply): string => (reply.body as { message?: string }).message ?? '';

  async function create(i: number, service: Service): Promise<Service> {
    const reply = await call<Service>(i, 'POST', SERVICES, service);
    assert.equal(reply.status, 201, `creating ${service.metadata.name} through server ${i}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }

  async function allServices(i: number): Promise<Service[]> {
    const reply = await call<{ items: Service[] }>(i, 'GET', '/api/v1/services');
    assert.equal(reply.status, 200);
    return reply.body.items;
  }

  it('both servers started on one etcd; the kubernetes Service has the first address', async () => {
    for (const i of [0, 1]) {
      const reply = await call<Service>(i, 'GET', `${SERVICES}/kubernetes`);
      assert.equal(reply.status, 200);
      assert.equal(reply.body.spec.clusterIP, '127.96.0.1');
    }
  });

  it('creates 60 NodePort services concurrently, half through each server, and no address or node port appears twice', async () => {
    const created = await Promise.all(Array.from({ length: 60 }, (_, n) => create(n % 2, nodePortService(`s${n}`))));
    const ips = created.map((s) => s.spec.clusterIP!);
    const ports = created.map((s) => s.spec.ports![0]!.nodePort!);
    assert.equal(new Set(ips).size, 60, `distinct cluster IPs: ${ips.join(' ')}`);
    assert.equal(new Set(ports).size, 60, `distinct node ports: ${ports.join(' ')}`);
    assert.ok(!ips.includes('127.96.0.1'), 'the kubernetes Service keeps its address');
    for (const ip of ips) assert.match(ip, /^127\.96\.0\.(\d+)$/);
    for (const port of ports) assert.ok(port >= 30000 && port <= 32767, `node port ${port} in range`);
    // Each server sees every service, with the same values.
    const seen = await allServices(1);
    const byName = new Map(seen.map((s) => [s.metadata.name, s.spec.clusterIP]));
    for (const s of created) assert.equal(byName.get(s.metadata.name), s.spec.clusterIP);
  });

  it('gives a contended requested address to exactly one of many concurrent creates across both servers', async () => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, n) => call(n % 2, 'POST', SERVICES, nodePortService(`race${n}`, { clusterIP: '127.96.0.10' }))),
    );
    assert.equal(replies.filter((r) => r.status === 201).length, 1);
    for (const r of replies.filter((x) => x.status !== 201)) {
      assert.equal(r.status, 422);
      assert.match(
        messageOf(r),
        /^Service "race\d" is invalid: spec\.clusterIPs: Invalid value: \[\]string\{"127\.96\.0\.10"\}: failed to allocate IP 127\.96\.0\.10: provided IP is already allocated$/,
      );
    }
  });

  it('refuses through one server an address and a node port the other gave out, with upstream’s messages', async () => {
    const taken = await create(0, nodePortService('holder', { clusterIP: '127.96.0.11', ports: [{ port: 80, nodePort: 30011 }] }));
    assert.equal(taken.spec.clusterIP, '127.96.0.11');
    assert.equal(taken.spec.ports![0]!.nodePort, 30011);

    const ip = await call(1, 'POST', SERVICES, nodePortService('wants-ip', { clusterIP: '127.96.0.11' }));
    assert.equal(ip.status, 422);
    assert.equal(
      messageOf(ip),
      'Service "wants-ip" is invalid: spec.clusterIPs: Invalid value: []string{"127.96.0.11"}: failed to allocate IP 127.96.0.11: provided IP is already allocated',
    );
    const port = await call(1, 'POST', SERVICES, nodePortService('wants-port', { ports: [{ port: 80, nodePort: 30011 }] }));
    assert.equal(port.status, 422);
    assert.equal(messageOf(port), 'Service "wants-port" is invalid: spec.ports[0].nodePort: Invalid value: 30011: provided port is already allocated');
    const outside = await call(1, 'POST', SERVICES, nodePortService('outside', { clusterIP: '127.97.0.1', ports: [{ port: 80, nodePort: 80 }] }));
    assert.equal(outside.status, 422);
    assert.equal(
      messageOf(outside),
      'Service "outside" is invalid: spec.clusterIPs: Invalid value: []string{"127.97.0.1"}: failed to allocate IP 127.97.0.1: the provided network does not match the current range',
    );

    // What kubectl 1.33 prints for it.
    const kubectl = newKubectl('1.33', join(dir, 'a', 'admin.kubeconfig'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: wants-ip\nspec:\n  clusterIP: 127.96.0.11\n  ports:\n  - port: 80\n');
    const result = await kubectl('create', '-f', '-', '--server', servers[1]!.url);
    assert.equal(result.code, 1, result.stdout);
    assert.equal(
      result.stderr.trim(),
      'The Service "wants-ip" is invalid: spec.clusterIPs: Invalid value: []string{"127.96.0.11"}: failed to allocate IP 127.96.0.11: provided IP is already allocated',
    );
  });

  it('releases on delete: the address and node port can be requested again through the other server', async () => {
    const deleted = await call(0, 'DELETE', `${SERVICES}/holder`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    const again = await create(1, nodePortService('reuses', { clusterIP: '127.96.0.11', ports: [{ port: 80, nodePort: 30011 }] }));
    assert.equal(again.spec.clusterIP, '127.96.0.11');
    assert.equal(again.spec.ports![0]!.nodePort, 30011);

    const kubectl = newKubectl('1.33', join(dir, 'a', 'admin.kubeconfig'));
    await kubectl.ok('delete', 'service', 'reuses', '--server', servers[0]!.url);
    const third = await create(1, nodePortService('third', { clusterIP: '127.96.0.11', ports: [{ port: 80, nodePort: 30011 }] }));
    assert.equal(third.spec.clusterIP, '127.96.0.11');
  });

  it('keeps in etcd exactly the addresses and node ports the services hold', async () => {
    const services = await allServices(0);
    const ips = services.flatMap((s) => (s.spec.clusterIPs ?? []).filter((ip) => ip !== 'None')).sort();
    const ports = services.flatMap((s) => (s.spec.ports ?? []).flatMap((p) => (p.nodePort !== undefined ? [String(p.nodePort)] : []))).sort();
    const storage = await newEtcdStorage({ endpoints: [etcd!.endpoint] });
    try {
      const names = async (prefix: string): Promise<string[]> =>
        (await storage.list(prefix)).items.map((kv) => kv.key.slice(prefix.length)).sort();
      assert.deepEqual(await names('/registry/ipaddresses/'), ips);
      assert.deepEqual(await names('/registry/servicenodeports/'), ports);
    } finally {
      await storage.close();
    }
  });
});
