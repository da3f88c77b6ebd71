/**
 * The garbage collector and the namespace controller end to end: a real
 * k8ts API server and controller manager running only these two controllers
 * and the ServiceAccount controller (lean-cluster.ts), hand-made owners and dependents created over HTTPS, and
 * kubectl 1.32 deleting with --cascade=background|foreground|orphan and
 * `delete namespace`, each with --wait, finishing as upstream's do; and the
 * TTL-after-finished controller deleting a finished Job (through the
 * collector, in the foreground).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startLeanCluster, type LeanCluster } from '../kubectl/lean-cluster.js';
import { ApiClient, serverUrlOf } from '../testing/api-client.js';
import { newKubectl, type Kubectl } from '../testing/kubectl.js';
import { waitForDefaultServiceAccount } from '../testing/service-accounts.js';

type Json = Record<string, unknown>;
interface Meta {
  name: string;
  uid: string;
  namespace?: string;
  ownerReferences?: { name: string; uid: string; blockOwnerDeletion?: boolean }[];
  finalizers?: string[];
  deletionTimestamp?: string;
}

const NS = 'gc-e2e';

describe('garbage collector and namespace controller (kubectl 1.32)', { timeout: 240_000 }, () => {
  let cluster: LeanCluster;
  let api: ApiClient;
  let kubectl: Kubectl;

  before(async () => {
    cluster = await startLeanCluster('gc-e2e', { controllerManagerArgs: ['--controllers=garbage-collector,namespace,serviceaccount,ttl-after-finished'] });
    api = new ApiClient(serverUrlOf(cluster.kubeconfig), join(cluster.workDir, 'data', 'pki'));
    kubectl = newKubectl('1.32', cluster.kubeconfig);
    await kubectl.ok('create', 'namespace', NS);
    await waitForDefaultServiceAccount(kubectl, NS);
  });

  after(async () => {
    api?.close();
    await cluster?.stop();
  });

  const path = (resource: string, name?: string, namespace = NS): string => {
    const base = resource === 'replicasets' ? `/apis/apps/v1/namespaces/${namespace}/${resource}` : `/api/v1/namespaces/${namespace}/${resource}`;
    return name === undefined ? base : `${base}/${name}`;
  };

  async function create(resource: string, body: Json, namespace = NS): Promise<Meta> {
    const r = await api.request('POST', path(resource, undefined, namespace), { body: JSON.stringify(body) });
    assert.equal(r.status, 201, r.text);
    return r.json<{ metadata: Meta }>().metadata;
  }

  async function get(resource: string, name: string, namespace = NS): Promise<{ status: number; metadata?: Meta }> {
    const r = await api.request('GET', path(resource, name, namespace));
    return { status: r.status, ...(r.status === 200 ? { metadata: r.json<{ metadata: Meta }>().metadata } : {}) };
  }

  /** Poll (with a deadline) until the object is gone. */
  async function waitGone(resource: string, name: string, namespace = NS, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await get(resource, name, namespace)).status !== 404) {
      if (Date.now() > deadline) throw new Error(`${resource}/${name} still exists after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const ref = (kind: string, apiVersion: string, owner: Meta, block = false): Json => ({
    apiVersion,
    kind,
    name: owner.name,
    uid: owner.uid,
    ...(block ? { blockOwnerDeletion: true } : {}),
  });
  const configMap = (name: string, owners: Json[] = [], finalizers?: string[]): Json => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(owners.length > 0 ? { ownerReferences: owners } : {}), ...(finalizers !== undefined ? { finalizers } : {}) },
    data: { k: 'v' },
  });

  it('--cascade=background: the owner goes at once, its dependents and theirs follow', async () => {
    const owner = await create('configmaps', configMap('bg-owner'));
    const child = await create('configmaps', configMap('bg-child', [ref('ConfigMap', 'v1', owner)]));
    await create('configmaps', configMap('bg-grandchild', [ref('ConfigMap', 'v1', child)]));
    const out = await kubectl.ok('delete', 'configmap', 'bg-owner', '-n', NS, '--cascade=background', '--wait');
    assert.equal(out.trim(), 'configmap "bg-owner" deleted');
    await waitGone('configmaps', 'bg-child');
    await waitGone('configmaps', 'bg-grandchild');
  });

  it('--cascade=foreground --wait: returns once the blocking dependents are gone, then the owner', async () => {
    const rs = await create('replicasets', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'fg' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'fg' } }, template: { metadata: { labels: { app: 'fg' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    for (const name of ['fg-a', 'fg-b']) {
      await create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels: { app: 'fg' }, ownerReferences: [{ ...ref('ReplicaSet', 'apps/v1', rs, true), controller: true }] },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
    }
    const out = await kubectl.ok('delete', 'replicaset', 'fg', '-n', NS, '--cascade=foreground', '--wait');
    assert.equal(out.trim(), 'replicaset.apps "fg" deleted');
    // kubectl waited for the ReplicaSet, which waited for its blocking pods.
    assert.equal((await get('replicasets', 'fg')).status, 404);
    assert.equal((await get('pods', 'fg-a')).status, 404);
    assert.equal((await get('pods', 'fg-b')).status, 404);
  });

  it('--cascade=orphan --wait: the owner goes, the dependents stay without the reference', async () => {
    const owner = await create('configmaps', configMap('orphan-owner'));
    const other = await create('configmaps', configMap('orphan-other'));
    await create('configmaps', configMap('orphan-child', [ref('ConfigMap', 'v1', owner, true)]));
    await create('configmaps', configMap('orphan-shared', [ref('ConfigMap', 'v1', owner), ref('ConfigMap', 'v1', other)]));
    const out = await kubectl.ok('delete', 'configmap', 'orphan-owner', '-n', NS, '--cascade=orphan', '--wait');
    assert.equal(out.trim(), 'configmap "orphan-owner" deleted');
    assert.equal((await get('configmaps', 'orphan-owner')).status, 404);
    const child = await get('configmaps', 'orphan-child');
    assert.equal(child.status, 200);
    assert.equal(child.metadata?.ownerReferences, undefined);
    const shared = await get('configmaps', 'orphan-shared');
    assert.deepEqual(shared.metadata?.ownerReferences?.map((r) => r.name), ['orphan-other']);
  });

  it('a dependent whose owner is replaced by a new object of the same name is collected', async () => {
    const first = await create('configmaps', configMap('reborn'));
    await create('configmaps', configMap('reborn-child', [ref('ConfigMap', 'v1', first)]));
    const r = await api.request('DELETE', path('configmaps', 'reborn'));
    assert.equal(r.status, 200, r.text);
    await create('configmaps', configMap('reborn'));
    await waitGone('configmaps', 'reborn-child');
    assert.equal((await get('configmaps', 'reborn')).status, 200);
  });

  it('a finished Job with ttlSecondsAfterFinished is deleted once its TTL is over; one without stays', async () => {
    const job = (name: string, ttl?: number): Json => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name },
      spec: {
        suspend: true,
        ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.35' }] } },
      },
    });
    const jobs = `/apis/batch/v1/namespaces/${NS}/jobs`;
    for (const body of [job('ttl-done', 1), job('no-ttl')]) {
      const created = await api.request('POST', jobs, { body: JSON.stringify(body) });
      assert.equal(created.status, 201, created.text);
      // No job controller runs here: the test finishes the Job itself, as the job controller would.
      const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const finished = await api.request('PATCH', `${jobs}/${(body.metadata as Meta).name}/status`, {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({
          status: {
            startTime: at,
            completionTime: at,
            conditions: [
              { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: at },
              { type: 'Complete', status: 'True', lastTransitionTime: at },
            ],
          },
        }),
      });
      assert.equal(finished.status, 200, finished.text);
    }
    const deadline = Date.now() + 30_000;
    while ((await api.request('GET', `${jobs}/ttl-done`)).status !== 404) {
      if (Date.now() > deadline) throw new Error('the Job with a TTL of 1 s still exists after 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await api.request('GET', `${jobs}/no-ttl`)).status, 200);
  });

  it('kubectl delete namespace --wait: the namespace is Terminating until its content is gone, then goes', async () => {
    const ns = 'gc-e2e-doomed';
    await kubectl.ok('create', 'namespace', ns);
    await waitForDefaultServiceAccount(kubectl, ns);
    await create('configmaps', configMap('one'), ns);
    await create('configmaps', configMap('held', [], ['example.com/hold']), ns);
    await create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: 'b' } }, ns);
    await create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, ns);
    const out = await kubectl.ok('delete', 'namespace', ns, '--wait=false');
    assert.equal(out.trim(), `namespace "${ns}" deleted`);
    assert.match(await kubectl.ok('get', 'namespace', ns, '-o', 'jsonpath={.status.phase}'), /^Terminating$/);
    // Held by one configmap's finalizer: the conditions say so.
    const deadline = Date.now() + 30_000;
    let message = '';
    while (!message.includes('example.com/hold in 1 resource instances')) {
      if (Date.now() > deadline) throw new Error(`no NamespaceFinalizersRemaining condition; last: ${message}`);
      message = await kubectl.ok('get', 'namespace', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].message}');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await get('configmaps', 'one', ns)).status, 404);
    assert.equal((await get('pods', 'p', ns)).status, 404);
    const created = await api.request('POST', path('configmaps', undefined, ns), { body: JSON.stringify(configMap('late')) });
    assert.equal(created.status, 403, created.text);
    const patched = await api.request('PATCH', path('configmaps', 'held', ns), {
      body: JSON.stringify({ metadata: { finalizers: null } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    const waited = await kubectl('delete', 'namespace', ns, '--wait', '--timeout=60s');
    // The namespace may already be gone when kubectl asks (NotFound), or kubectl waits for it.
    assert.ok(waited.code === 0 || /NotFound/.test(waited.stderr), waited.stderr);
    const gone = await kubectl('get', 'namespace', ns);
    assert.match(gone.stderr, new RegExp(`namespaces "${ns}" not found`));
  });

  it('kubectl delete namespace --wait with content finishes and the content is gone', async () => {
    const ns = 'gc-e2e-content';
    await kubectl.ok('create', 'namespace', ns);
    await waitForDefaultServiceAccount(kubectl, ns);
    const owner = await create('configmaps', configMap('owner'), ns);
    await create('configmaps', configMap('child', [ref('ConfigMap', 'v1', owner, true)]), ns);
    await create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: 'b' } }, ns);
    const out = await kubectl.ok('delete', 'namespace', ns, '--wait', '--timeout=120s');
    assert.equal(out.trim(), `namespace "${ns}" deleted`);
    const gone = await kubectl('get', 'namespace', ns);
    assert.match(gone.stderr, new RegExp(`namespaces "${ns}" not found`));
    const list = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.deepEqual(list.json<{ items: unknown[] }>().items, []);
  });
});
