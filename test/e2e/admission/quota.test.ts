/**
 * ResourceQuota and LimitRanger end to end, with real kubectl against a
 * `k8ts apiserver` and a `k8ts controller-manager` running the resource quota
 * controller (lean-cluster.ts): `kubectl create quota`, the
 * resource quota controller filling status, a pod past the quota refused 403
 * with upstream's message and nothing stored, `kubectl describe quota`, a
 * LimitRange default on the created pod, and 50 concurrent creates against
 * pods=10 giving exactly 10 pods. Then two `k8ts apiserver` processes on one
 * real etcd with the 50 creates split between them: still exactly 10, since
 * usage is charged by compare-and-swap in etcd, not by a lock in either process.
 *
 * Budget: about 30 s (an API server and a controller manager, etcd and two API servers, ~150 requests, ~15 kubectl runs).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../../src/client/testing/wait-for.js';
import { startEtcd, type EtcdProcess } from '../../../src/storage/etcd/testing/etcd-process.js';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';
import { ApiClient, serverUrlOf, type ApiResponse } from '../testing/api-client.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import { ensureDefaultServiceAccount } from '../testing/service-accounts.js';

const SERVING = /^apiserver: serving on (https:\/\/\S+:\d+)$/;

const podBody = (name: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

/** POST `count` pods named burst-N into `namespace`, the i-th through clients[i % clients.length], all at once. */
async function burst(clients: readonly ApiClient[], namespace: string, count: number): Promise<ApiResponse[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => clients[i % clients.length]!.request('POST', `/api/v1/namespaces/${namespace}/pods`, { body: podBody(`burst-${i}`) })),
  );
}

function assertExactlyTen(replies: readonly ApiResponse[]): void {
  const created = replies.filter((r) => r.status === 201);
  const refused = replies.filter((r) => r.status === 403);
  assert.equal(created.length, 10, replies.filter((r) => r.status !== 201 && r.status !== 403).map((r) => r.text).join('\n'));
  assert.equal(refused.length, 40);
  for (const r of refused) assert.match(r.json<{ message: string }>().message, /^pods "burst-\d+" is forbidden: exceeded quota: burst, requested: pods=1, used: pods=10, limited: pods=10$/);
}

describe('ResourceQuota and LimitRanger through the API server, the quota controller and kubectl', { timeout: 180_000 }, () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;
  let api: ApiClient;

  before(async () => {
    // No ServiceAccount controller: the test makes each new namespace's `default` (ensureDefaultServiceAccount).
    cluster = await startLeanCluster('quota', { controllerManagerArgs: ['--controllers=resourcequota'] });
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(cluster.workDir, 'data', 'pki'));
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  const jsonpath = (namespace: string, what: string, path: string): Promise<string> => kubectl.ok('get', what, '-n', namespace, '-o', `jsonpath=${path}`);
  const waitForUsage = (namespace: string, quota: string, resource: string, value: string): Promise<void> =>
    waitFor(async () => (await jsonpath(namespace, `resourcequota/${quota}`, `{.status.used.${resource.replace(/\./g, '\\.')}}`)) === value, { timeoutMs: 30_000, intervalMs: 200 });

  it('kubectl create quota; the controller sets status; a LimitRange default lands on the pod; the pod past the quota is refused and not stored', async () => {
    await kubectl.ok('create', 'namespace', 'team');
    await ensureDefaultServiceAccount(kubectl, 'team');
    const limits = join(cluster.workDir, 'limits.yaml');
    await writeFile(limits, 'apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: defaults\nspec:\n  limits:\n  - type: Container\n    default:\n      cpu: 200m\n    defaultRequest:\n      cpu: 100m\n');
    await kubectl.ok('apply', '-n', 'team', '-f', limits);
    await kubectl.ok('create', 'quota', 'compute', '-n', 'team', '--hard=pods=2,requests.cpu=1');
    await waitForUsage('team', 'compute', 'pods', '0');
    await kubectl.ok('run', 'a', '-n', 'team', '--image=nginx', '--restart=Never');
    await kubectl.ok('run', 'b', '-n', 'team', '--image=nginx', '--restart=Never');
    assert.equal(await jsonpath('team', 'pod/a', '{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.limits.cpu}'), '100m 200m');
    assert.equal(await jsonpath('team', 'pod/a', '{.metadata.annotations.kubernetes\\.io/limit-ranger}'), 'LimitRanger plugin set: cpu request for container a; cpu limit for container a');

    const refused = await kubectl('run', 'web', '-n', 'team', '--image=nginx', '--restart=Never');
    assert.notEqual(refused.code, 0);
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): pods "web" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2');
    const missing = await kubectl('get', 'pod', 'web', '-n', 'team');
    assert.match(missing.stderr, /pods "web" not found/);

    const described = await kubectl.ok('describe', 'quota', 'compute', '-n', 'team');
    assert.match(described, /^Name:\s+compute$/m);
    assert.match(described, /^pods\s+2\s+2$/m);
    assert.match(described, /^requests\.cpu\s+200m\s+1$/m);
  });

  it('refuses a container above the LimitRange max with upstream\'s message', async () => {
    const bounds = join(cluster.workDir, 'bounds.yaml');
    await writeFile(bounds, 'apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: bounds\nspec:\n  limits:\n  - type: Container\n    max:\n      cpu: 500m\n');
    await kubectl.ok('create', 'namespace', 'bounded');
    await ensureDefaultServiceAccount(kubectl, 'bounded');
    await kubectl.ok('apply', '-n', 'bounded', '-f', bounds);
    const refused = await kubectl('run', 'big', '-n', 'bounded', '--image=nginx', '--restart=Never', '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"1"}}}]}}');
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 1');
  });

  it('50 concurrent pod creates against pods=10 make exactly 10 pods', async () => {
    await kubectl.ok('create', 'namespace', 'crowd');
    await ensureDefaultServiceAccount(kubectl, 'crowd');
    await kubectl.ok('create', 'quota', 'burst', '-n', 'crowd', '--hard=pods=10');
    await waitForUsage('crowd', 'burst', 'pods', '0');
    assertExactlyTen(await burst([api], 'crowd', 50));
    const names = await kubectl.ok('get', 'pods', '-n', 'crowd', '-o', 'name');
    assert.equal(names.trim().split('\n').length, 10);
    await waitForUsage('crowd', 'burst', 'pods', '10');
  });

  it('the controller gives quota back when a pod is deleted', async () => {
    await kubectl.ok('delete', 'pod', 'a', '-n', 'team', '--grace-period=0', '--force', '--wait=false');
    await waitFor(async () => (await kubectl('get', 'pod', 'a', '-n', 'team')).code !== 0, { timeoutMs: 30_000, intervalMs: 200 });
    await waitForUsage('team', 'compute', 'pods', '1');
    await kubectl.ok('run', 'c', '-n', 'team', '--image=nginx', '--restart=Never');
  });
});

describe('ResourceQuota across two API servers on one etcd', { timeout: 180_000 }, () => {
  let etcd: EtcdProcess | undefined;
  let dir: string;
  const servers: K8tsProcess[] = [];
  const clients: ApiClient[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-quota-etcd-'));
    etcd = await startEtcd();
    const common = ['--secure-port', '0', '--etcd-servers', etcd.endpoint, '--bind-address', '127.0.0.1'];
    const first = startK8ts(['apiserver', '--data-dir', join(dir, 'a'), ...common]);
    servers.push(first);
    const firstUrl = SERVING.exec(await first.waitForLine(SERVING, 60_000))![1]!;
    const pki = join(dir, 'a', 'pki');
    const second = startK8ts([
      'apiserver', '--data-dir', join(dir, 'b'), ...common,
      '--tls-cert-file', join(pki, 'apiserver.crt'), '--tls-private-key-file', join(pki, 'apiserver.key'), '--client-ca-file', join(pki, 'ca.crt'),
    ]);
    servers.push(second);
    const secondUrl = SERVING.exec(await second.waitForLine(SERVING, 60_000))![1]!;
    clients.push(new ApiClient(firstUrl, pki), new ApiClient(secondUrl, pki));
  });

  after(async () => {
    for (const c of clients) c.close();
    const failures: unknown[] = [];
    for (const proc of servers) {
      const code = await proc.stop('SIGTERM').catch((e: unknown) => e);
      if (code !== 0) failures.push(new Error(`apiserver exited with ${String(code)}:\n${proc.output()}`));
    }
    await etcd?.stop();
    await rm(dir, { recursive: true, force: true });
    if (failures.length > 0) throw failures[0];
  });

  it('50 concurrent creates split between the two servers against pods=10 make exactly 10 pods', async () => {
    const [a, b] = clients as [ApiClient, ApiClient];
    assert.equal((await a.request('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shared' } }) })).status, 201);
    // No controller manager: the test makes the ServiceAccount pods need (ServiceAccount admission).
    assert.equal((await a.request('POST', '/api/v1/namespaces/shared/serviceaccounts', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }) })).status, 201);
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'burst' }, spec: { hard: { pods: '10' } } };
    const created = await a.request('POST', '/api/v1/namespaces/shared/resourcequotas', { body: JSON.stringify(quota) });
    assert.equal(created.status, 201, created.text);
    // No controller manager here: write the status the resource quota controller would.
    const withStatus = { ...created.json(), status: { hard: { pods: '10' }, used: { pods: '0' } } };
    const put = await b.request('PUT', '/api/v1/namespaces/shared/resourcequotas/burst/status', { body: JSON.stringify(withStatus) });
    assert.equal(put.status, 200, put.text);
    // Both servers' watch caches have seen the namespace and the quota's status before the burst.
    for (const c of clients) {
      await waitFor(async () => (await c.request('GET', '/api/v1/namespaces/shared/resourcequotas/burst')).json<{ status?: { used?: { pods?: string } } }>().status?.used?.pods === '0', { timeoutMs: 10_000, intervalMs: 50 });
    }
    assertExactlyTen(await burst(clients, 'shared', 50));
    const pods = await a.request('GET', '/api/v1/namespaces/shared/pods');
    assert.equal(pods.json<{ items: unknown[] }>().items.length, 10);
    const stored = await b.request('GET', '/api/v1/namespaces/shared/resourcequotas/burst');
    assert.deepEqual(stored.json<{ status: unknown }>().status, { hard: { pods: '10' }, used: { pods: '10' } });
  });
});
