/**
 * The cluster DNS of `k8ts server`, queried through its loopback address as
 * a client would (node's dns Resolver over UDP, dns-packet over TCP):
 * Services made with real kubectl answer as the Kubernetes DNS specification
 * says (ClusterIP A, SRV of named ports, PTR, headless per-pod records from
 * real pods on the process runtime, ExternalName CNAME, NXDOMAIN, REFUSED
 * outside the domain), a deleted Service stops answering, and the kubelet
 * writes each pod's resolv.conf with the cluster DNS and search path.
 */
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { queryTcp } from '../../../src/dns/testing/dns-query.js';
import { startCluster, type TestCluster } from '../kubectl/cluster.js';
import { newKubectl, withStdin, type Kubectl } from '../testing/kubectl.js';

const MANIFESTS = `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}, {name: stats, port: 81, protocol: UDP}]
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{name: pg, port: 5432}]
---
apiVersion: v1
kind: Service
metadata: {name: ext}
spec:
  type: ExternalName
  externalName: www.example.com
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, labels: {app: db}}
spec:
  hostname: db-0
  subdomain: db
  containers:
  - name: db
    image: busybox:1.35
    command: [sleep, "3600"]
    ports: [{name: pg, containerPort: 5432}]
`;

const httpGet = (url: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

/** The error code of a failed lookup ('' when it succeeded). */
const failure = async (lookup: Promise<unknown>): Promise<string> =>
  lookup.then(
    () => '',
    (e: unknown) => String((e as { code?: unknown }).code ?? e),
  );

describe('the cluster DNS of k8ts server', { timeout: 240_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let dnsPort: number;
  let healthUrl: string;
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  const until = (description: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> =>
    waitFor(check, { timeoutMs, intervalMs: 200, description });
  const field = async (what: string, path: string): Promise<string> => {
    const r = await kubectl('get', ...what.split(' '), '-o', `jsonpath={${path}}`);
    return r.code === 0 ? r.stdout.trim() : '';
  };

  before(async () => {
    cluster = await startCluster('cluster-dns', { agent: true });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    const line = await cluster.server.waitForLine(/^dns: cluster\.local on 127\.0\.0\.1:\d+/, 30_000);
    dnsPort = Number(/:(\d+) \(udp and tcp\)/.exec(line)?.[1]);
    healthUrl = /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0] ?? '';
    resolver.setServers([`127.0.0.1:${dnsPort}`]);
    await withStdin(kubectl, cluster.kubeconfig, MANIFESTS).ok('apply', '-f', '-');
  });
  after(() => cluster?.stop());

  it('is ready once its informers have synced, and counts queries with CoreDNS metric names', async () => {
    await until('dns /readyz 200', async () => (await httpGet(`${healthUrl}/readyz`).catch(() => ({ status: 0 }))).status === 200);
    await until('the kubernetes Service answers', async () => (await resolver.resolve4('kubernetes.default.svc.cluster.local').catch(() => [])).length === 1);
    assert.match((await httpGet(`${healthUrl}/metrics`)).body, /coredns_dns_requests_total\{[^}]*proto="udp"[^}]*type="A"\} \d+/);
  });

  it('answers A, SRV (per named port and protocol) and PTR for a ClusterIP Service, over UDP and TCP', async () => {
    const clusterIP = await field('service web', '.spec.clusterIP');
    assert.match(clusterIP, /^127\.\d+\.\d+\.\d+$/);
    await until('web resolves', async () => (await resolver.resolve4('web.default.svc.cluster.local').catch((): string[] => [])).includes(clusterIP));
    assert.deepEqual(await resolver.resolve4('WEB.default.svc.cluster.local'), [clusterIP]);
    assert.deepEqual(await resolver.resolveSrv('_http._tcp.web.default.svc.cluster.local'), [{ name: 'web.default.svc.cluster.local', port: 80, priority: 0, weight: 100 }]);
    assert.deepEqual(await resolver.resolveSrv('_stats._udp.web.default.svc.cluster.local'), [{ name: 'web.default.svc.cluster.local', port: 81, priority: 0, weight: 100 }]);
    assert.equal(await failure(resolver.resolveSrv('_stats._tcp.web.default.svc.cluster.local')), 'ENOTFOUND');
    assert.deepEqual(await resolver.reverse(clusterIP), ['web.default.svc.cluster.local']);
    const tcp = await queryTcp(dnsPort, 'web.default.svc.cluster.local', 'A');
    assert.deepEqual(tcp.answers?.map((a) => (a.type === 'A' ? [a.data, a.ttl] : [])), [[clusterIP, 5]]);
  });

  it('answers a headless Service with its ready pod: the Service name, the pod\'s hostname record, SRV to it', async () => {
    await until('db-0 Ready', async () => (await field('pod db-0', '.status.conditions[?(@.type=="Ready")].status')) === 'True', 90_000);
    const podIP = await field('pod db-0', '.status.podIP');
    await until('db resolves to the pod', async () => (await resolver.resolve4('db.default.svc.cluster.local').catch((): string[] => [])).includes(podIP));
    assert.deepEqual(await resolver.resolve4('db-0.db.default.svc.cluster.local'), [podIP]);
    assert.deepEqual(await resolver.resolveSrv('_pg._tcp.db.default.svc.cluster.local'), [{ name: 'db-0.db.default.svc.cluster.local', port: 5432, priority: 0, weight: 100 }]);
  });

  it('answers an ExternalName Service with a CNAME', async () => {
    await until('ext answers', async () => (await resolver.resolveCname('ext.default.svc.cluster.local').catch(() => [])).length === 1);
    assert.deepEqual(await resolver.resolveCname('ext.default.svc.cluster.local'), ['www.example.com']);
  });

  it('NXDOMAIN for names in the domain that do not exist (with the SOA), REFUSED outside it', async () => {
    assert.equal(await failure(resolver.resolve4('nope.default.svc.cluster.local')), 'ENOTFOUND');
    const tcp = await queryTcp(dnsPort, 'nope.default.svc.cluster.local', 'A');
    assert.equal(tcp.rcode, 'NXDOMAIN');
    assert.equal(tcp.authorities?.[0]?.type, 'SOA');
    assert.equal(await failure(resolver.resolve4('example.com')), 'EREFUSED');
  });

  it('stops answering for a Service once it is deleted', async () => {
    await kubectl.ok('delete', 'service', 'web');
    await until('web is NXDOMAIN', async () => (await failure(resolver.resolve4('web.default.svc.cluster.local'))) === 'ENOTFOUND');
  });

  it('the kubelet writes the pod\'s resolv.conf: the cluster DNS, the search path, ndots:5', async () => {
    const uid = await field('pod db-0', '.metadata.uid');
    const text = await readFile(join(cluster.workDir, 'data', 'kubelet', 'pods', uid, 'resolv.conf'), 'utf8');
    assert.match(text, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\b/m);
    assert.match(text, /^nameserver 127\.0\.0\.1$/m);
    assert.match(text, /^options ndots:5$/m);
  });
});
