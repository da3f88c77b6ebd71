/**
 * The eviction subresource honours PodDisruptionBudgets against a real API
 * server (`k8ts apiserver` alone: the test writes the budget's status through
 * its status subresource, as the disruption controller would, and stands in
 * for the kubelet by posting the pods' Running/Ready status): a raw POST of
 * an Eviction gets upstream's 429 body, 500 for two budgets, and 201 when the
 * budget allows it (which spends the allowance); `kubectl drain` retries on
 * the 429 and finishes once the budget allows it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../src/client/testing/wait-for.js';
import { ApiClient } from './testing/api-client.js';
import { startK8ts, type K8tsProcess } from './testing/k8ts-process.js';
import { newKubectl, type Kubectl } from './testing/kubectl.js';

interface Status {
  kind: string;
  status: string;
  reason?: string;
  code: number;
  message: string;
  details?: { causes?: { reason?: string; message?: string }[]; retryAfterSeconds?: number };
}
interface BudgetStatus {
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
}

const PODS = '/api/v1/namespaces/default/pods';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget.";

describe('pods/eviction and PodDisruptionBudgets (real API server, kubectl 1.32 drain)', { timeout: 120_000 }, () => {
  let dir: string;
  let server: K8tsProcess;
  let api: ApiClient;
  let kubectl: Kubectl;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-eviction-pdb-'));
    server = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    const url = (await server.waitForLine(/^apiserver: serving on /, 60_000)).replace(/^apiserver: serving on /, '').trim();
    const kubeconfig = (await server.waitForLine(/^export KUBECONFIG=/, 60_000)).slice('export KUBECONFIG='.length).trim();
    api = new ApiClient(url, join(dir, 'pki'));
    kubectl = newKubectl('1.32', kubeconfig);
    // No controller manager: the test makes the ServiceAccount pods need (ServiceAccount admission).
    await kubectl.ok('create', 'serviceaccount', 'default', '-n', 'default');
  });

  after(async () => {
    api?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const ok = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> => {
    const r = await api.request(method, path, { ...(body !== undefined ? { body: JSON.stringify(body) } : {}), headers });
    assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.json();
  };
  const evict = (name: string, deleteOptions: Record<string, unknown> = { gracePeriodSeconds: 0 }) =>
    api.request('POST', `${PODS}/${name}/eviction`, {
      body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, deleteOptions }),
    });
  const budgetStatus = async (name: string): Promise<BudgetStatus> => (await ok('GET', `${PDBS}/${name}`)).status as BudgetStatus;
  const setBudgetStatus = (name: string, status: Partial<BudgetStatus> & { expectedPods?: number }) => ok('PATCH', `${PDBS}/${name}/status`, { status }, MERGE);
  const podExists = async (name: string): Promise<boolean> => (await api.request('GET', `${PODS}/${name}`)).status === 200;

  /** A pod on n1 that the test, standing in for the kubelet, reports Running and Ready. */
  async function readyPod(name: string): Promise<void> {
    await ok('POST', PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
    await ok('PATCH', `${PODS}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
  }

  it('sets up a node, three ready pods and a budget of minAvailable 2 whose status allows one disruption', async () => {
    await ok('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    for (const name of ['web-a', 'web-b', 'web-c']) await readyPod(name);
    await ok('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } });
    await setBudgetStatus('web', { observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
  });

  it('an eviction the budget allows deletes the pod and spends the allowance (disruptedPods records it)', async () => {
    const r = await evict('web-a');
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json<Status>().status, 'Success');
    assert.equal(await podExists('web-a'), false, 'gracePeriodSeconds 0: gone at once');
    const status = await budgetStatus('web');
    assert.equal(status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(status.disruptedPods ?? {}), ['web-a']);
  });

  it('an eviction the budget does not allow is a 429 with upstream\'s message and cause, and changes nothing', async () => {
    await setBudgetStatus('web', { currentHealthy: 2, disruptedPods: null as unknown as Record<string, string> });
    const r = await evict('web-b');
    assert.equal(r.status, 429, r.text);
    const body = r.json<Status>();
    assert.equal(body.kind, 'Status');
    assert.equal(body.status, 'Failure');
    assert.equal(body.reason, 'TooManyRequests');
    assert.equal(body.code, 429);
    assert.equal(body.message, VIOLATES);
    assert.deepEqual(body.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' }]);
    assert.equal(r.headers['retry-after'], undefined, 'retryAfterSeconds 0: no Retry-After');
    assert.equal(await podExists('web-b'), true);
  });

  it('kubectl drain retries on the 429 and gives up at its timeout', async () => {
    const r = await kubectl('drain', 'n1', '--force', '--grace-period=0', '--timeout=3s');
    assert.notEqual(r.code, 0);
    assert.match(r.stdout, /node\/n1 cordoned/);
    assert.match(r.stderr, /error when evicting pods\/"web-[bc]" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    assert.equal(await podExists('web-b'), true);
    assert.equal(await podExists('web-c'), true);
  });

  it('a budget whose status is behind its spec answers 429 "still being processed" with Retry-After 10', async () => {
    await ok('PATCH', `${PDBS}/web`, { spec: { minAvailable: 0 } }, MERGE);
    const r = await evict('web-b');
    assert.equal(r.status, 429, r.text);
    const body = r.json<Status>();
    assert.equal(body.message, VIOLATES);
    assert.deepEqual(body.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }]);
    assert.equal(body.details?.retryAfterSeconds, 10);
    assert.equal(r.headers['retry-after'], '10');
  });

  it('a pod two budgets select cannot be evicted (500)', async () => {
    await ok('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'also-web' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } });
    const r = await evict('web-b');
    assert.equal(r.status, 500, r.text);
    assert.equal(r.json<Status>().message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    await ok('DELETE', `${PDBS}/also-web`);
  });

  it('once the budget allows it, kubectl drain evicts the rest and the node is drained', async () => {
    await setBudgetStatus('web', { observedGeneration: 2, currentHealthy: 2, desiredHealthy: 0, expectedPods: 2, disruptionsAllowed: 2 });
    const out = await kubectl.ok('drain', 'n1', '--force', '--grace-period=0', '--timeout=30s');
    assert.match(out, /evicting pod default\/web-b/);
    assert.match(out, /pod\/web-b evicted/);
    assert.match(out, /pod\/web-c evicted/);
    assert.match(out, /node\/n1 drained/);
    const status = await budgetStatus('web');
    assert.equal(status.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(status.disruptedPods ?? {}).sort(), ['web-b', 'web-c']);
  });
});

describe('the disruption controller keeps the budget that evictions spend (k8ts apiserver + controller-manager)', { timeout: 120_000 }, () => {
  let dir: string;
  let apiserver: K8tsProcess;
  let manager: K8tsProcess;
  let api: ApiClient;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k8ts-disruption-'));
    apiserver = startK8ts(['apiserver', '--data-dir', dir, '--secure-port', '0', '--bind-address', '127.0.0.1']);
    const url = (await apiserver.waitForLine(/^apiserver: serving on /, 60_000)).replace(/^apiserver: serving on /, '').trim();
    api = new ApiClient(url, join(dir, 'pki'));
    // The manager runs only the disruption controller: the test makes the ServiceAccount pods need.
    const sa = await api.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }) });
    assert.equal(sa.status, 201, sa.text);
    manager = startK8ts(['controller-manager', '--kubeconfig', join(dir, 'pki', 'controller-manager.kubeconfig'), '--secure-port', '0', '--leader-elect=false', '--controllers=disruption']);
    await manager.waitForLine(/^controller-manager: serving /, 60_000);
  });

  after(async () => {
    await manager?.stop();
    api?.close();
    await apiserver?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.request(method, path, { ...(body !== undefined ? { body: JSON.stringify(body) } : {}), headers });
  const ok = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> => {
    const r = await request(method, path, body, headers);
    assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.json();
  };
  const readyPod = async (name: string): Promise<void> => {
    await ok('POST', PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await ok('PATCH', `${PODS}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
  };
  const evict = (name: string) =>
    request('POST', `${PODS}/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
  /** Wait until the budget's status matches (the controller writes it). */
  const budgetBecomes = (check: (s: BudgetStatus & { expectedPods?: number }) => boolean): Promise<void> =>
    waitFor(
      async () => {
        const status = (await ok('GET', `${PDBS}/web`)).status as (BudgetStatus & { expectedPods?: number }) | undefined;
        return status !== undefined && check(status);
      },
      { timeoutMs: 20_000, description: "the budget's status" },
    );

  it('computes the status, lets one eviction through, refuses the next, and allows again when a pod is added', async () => {
    for (const name of ['a', 'b', 'c']) await readyPod(name);
    await ok('POST', PDBS, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } });
    await budgetBecomes((s) => s.observedGeneration === 1 && s.currentHealthy === 3 && s.desiredHealthy === 2 && s.expectedPods === 3 && s.disruptionsAllowed === 1);
    const status = (await ok('GET', `${PDBS}/web`)).status as { conditions?: { type: string; status: string; reason: string }[] };
    assert.deepEqual(
      status.conditions?.map((c) => `${c.type}=${c.status} ${c.reason}`),
      ['DisruptionAllowed=True SufficientPods'],
    );

    assert.equal((await evict('a')).status, 201);
    const refused = await evict('b');
    assert.equal(refused.status, 429, refused.text);
    // The controller sees a gone and settles on 2 healthy of 2 desired.
    await budgetBecomes((s) => s.currentHealthy === 2 && s.expectedPods === 2 && s.disruptionsAllowed === 0 && s.disruptedPods === undefined);
    const again = await evict('b');
    assert.equal(again.status, 429);
    assert.equal((again.json<Status>().details?.causes ?? [])[0]?.message, 'The disruption budget web needs 2 healthy pods and has 2 currently');

    await readyPod('d');
    await budgetBecomes((s) => s.currentHealthy === 3 && s.disruptionsAllowed === 1);
    assert.equal((await evict('b')).status, 201);
  });
});
