/**
 * @kubernetes/client-node (the JavaScript client) against k8ts: list, watch,
 * an informer, create from YAML, merge and JSON patches, and its errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { TestCluster } from '../kubectl/cluster.js';
import { startLeanCluster } from '../kubectl/lean-cluster.js';

const NS = 'client-node';

interface Seen {
  readonly type: string;
  readonly name: string;
  readonly data: Record<string, string> | undefined;
}

/** Events as they arrive, and a wait for one that matches, with a deadline. */
class EventLog {
  readonly events: Seen[] = [];
  private readonly waiters = new Set<() => void>();

  push(event: Seen): void {
    this.events.push(event);
    for (const w of [...this.waiters]) w();
  }

  waitFor(match: (e: Seen) => boolean, what: string, timeoutMs = 15_000): Promise<Seen> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.events.find(match);
        if (found === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(this.events)}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }
}

function apiError(e: unknown): { code: number; body: Record<string, unknown> } {
  assert.ok(e instanceof k8s.ApiException, `an ApiException, got ${String(e)}`);
  const exception = e as k8s.ApiException<unknown>;
  const body = typeof exception.body === 'string' ? (JSON.parse(exception.body) as Record<string, unknown>) : (exception.body as Record<string, unknown>);
  return { code: exception.code, body };
}

describe('@kubernetes/client-node against k8ts', () => {
  let cluster: TestCluster;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let objects: k8s.KubernetesObjectApi;
  const stops: (() => Promise<void> | void)[] = [];

  before(async () => {
    cluster = await startLeanCluster('client-node');
    kc = new k8s.KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  });
  after(async () => {
    for (const stop of stops.reverse()) await stop();
    await cluster?.stop();
  });

  it('creates every document of a YAML file through the generic object API', async () => {
    const specs = k8s.loadAllYaml(`
apiVersion: v1
kind: Namespace
metadata:
  name: ${NS}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: from-yaml
  namespace: ${NS}
  labels: {source: yaml}
data:
  greeting: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
`) as k8s.KubernetesObject[];
    const created: k8s.KubernetesObject[] = [];
    for (const spec of specs) created.push(await objects.create(spec));
    assert.deepEqual(
      created.map((o) => `${o.kind}/${o.metadata?.name}`),
      ['Namespace/client-node', 'ConfigMap/from-yaml', 'Deployment/web'],
    );
    for (const o of created) {
      assert.match(o.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.match(o.metadata?.resourceVersion ?? '', /^\d+$/);
    }
    const read = await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-yaml', namespace: NS } });
    assert.deepEqual((read as k8s.V1ConfigMap).data, { greeting: 'hello' });
    const deployment = await apps.readNamespacedDeployment({ name: 'web', namespace: NS });
    assert.equal(deployment.spec?.template.spec?.containers[0]?.image, 'nginx:1.25');
    const ns = await core.readNamespace({ name: NS });
    assert.equal(ns.metadata?.labels?.['kubernetes.io/metadata.name'], NS);
    assert.equal(ns.status?.phase, 'Active');

    try {
      await objects.create(specs[1]!);
      assert.fail('a second create succeeded');
    } catch (e: unknown) {
      const { code, body } = apiError(e);
      assert.equal(code, 409);
      assert.equal(body.reason, 'AlreadyExists');
      assert.equal(body.message, 'configmaps "from-yaml" already exists');
    }
  });

  it('lists with selectors and in pages', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) {
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name, labels: { paged: 'yes' } }, data: { name } } });
    }
    const all = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'paged=yes' });
    assert.equal(all.kind, 'ConfigMapList');
    assert.match(all.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.deepEqual(
      all.items.map((i) => i.metadata?.name),
      ['page-a', 'page-b', 'page-c'],
    );
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'paged=yes', limit: 2, ...(token !== undefined ? { _continue: token } : {}) });
      names.push(...page.items.map((i) => i.metadata?.name ?? ''));
      token = page.metadata?._continue;
      pages++;
    } while (token !== undefined && token !== '');
    assert.equal(pages, 2);
    assert.deepEqual(names, ['page-a', 'page-b', 'page-c']);
    const byField = await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.name=page-b' });
    assert.deepEqual(
      byField.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`),
      [`${NS}/page-b`],
    );
  });

  it('watches ADDED, MODIFIED and DELETED events of changes the test makes', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: NS });
    const log = new EventLog();
    let ended: unknown;
    const controller = await new k8s.Watch(kc).watch(
      `/api/v1/namespaces/${NS}/configmaps`,
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
      (type: string, object: k8s.V1ConfigMap) => log.push({ type, name: object.metadata?.name ?? '', data: object.data }),
      (err: unknown) => {
        ended = err;
      },
    );
    stops.push(() => controller.abort());

    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'watched' }, data: { v: '1' } } });
    await log.waitFor((e) => e.type === 'ADDED' && e.name === 'watched', 'ADDED watched');
    await core.patchNamespacedConfigMap(
      { namespace: NS, name: 'watched', body: { data: { v: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const modified = await log.waitFor((e) => e.type === 'MODIFIED' && e.name === 'watched', 'MODIFIED watched');
    assert.deepEqual(modified.data, { v: '2' });
    await core.deleteNamespacedConfigMap({ namespace: NS, name: 'watched' });
    await log.waitFor((e) => e.type === 'DELETED' && e.name === 'watched', 'DELETED watched');
    assert.deepEqual(
      log.events.filter((e) => e.name === 'watched').map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    assert.equal(ended, undefined, 'the watch is still open');
  });

  it('an informer lists, then follows additions, updates and deletions', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: NS }));
    const log = new EventLog();
    informer.on('add', (o: k8s.V1ConfigMap) => log.push({ type: 'add', name: o.metadata?.name ?? '', data: o.data }));
    informer.on('update', (o: k8s.V1ConfigMap) => log.push({ type: 'update', name: o.metadata?.name ?? '', data: o.data }));
    informer.on('delete', (o: k8s.V1ConfigMap) => log.push({ type: 'delete', name: o.metadata?.name ?? '', data: o.data }));
    informer.on('error', (e: unknown) => log.push({ type: 'error', name: String(e), data: undefined }));
    await informer.start();
    stops.push(() => informer.stop());
    await log.waitFor((e) => e.type === 'add' && e.name === 'from-yaml', 'the initial list');
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'informed' }, data: { v: '1' } } });
    await log.waitFor((e) => e.type === 'add' && e.name === 'informed', 'add informed');
    await core.replaceNamespacedConfigMap({ namespace: NS, name: 'informed', body: { metadata: { name: 'informed' }, data: { v: '2' } } });
    await log.waitFor((e) => e.type === 'update' && e.name === 'informed' && e.data?.v === '2', 'update informed');
    await core.deleteNamespacedConfigMap({ namespace: NS, name: 'informed' });
    await log.waitFor((e) => e.type === 'delete' && e.name === 'informed', 'delete informed');
    assert.ok(informer.list(NS).some((o) => o.metadata?.name === 'from-yaml'));
    assert.ok(!informer.list(NS).some((o) => o.metadata?.name === 'informed'));
    assert.ok(!log.events.some((e) => e.type === 'error'), JSON.stringify(log.events));
  });

  it('merge and JSON patches, with the object API and the typed API', async () => {
    const merged = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-yaml', namespace: NS, labels: { patched: 'merge' } }, data: { extra: 'yes' } } as k8s.V1ConfigMap,
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    assert.deepEqual((merged as k8s.V1ConfigMap).data, { greeting: 'hello', extra: 'yes' });
    assert.deepEqual(merged.metadata?.labels, { source: 'yaml', patched: 'merge' });

    const patched = await core.patchNamespacedConfigMap(
      { namespace: NS, name: 'from-yaml', body: [{ op: 'replace', path: '/data/greeting', value: 'hi' }, { op: 'remove', path: '/data/extra' }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    assert.deepEqual(patched.data, { greeting: 'hi' });
    const scaled = await apps.patchNamespacedDeployment(
      { namespace: NS, name: 'web', body: { spec: { replicas: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.equal(scaled.spec?.replicas, 3);
    assert.equal(scaled.metadata?.generation, 2);
  });

  it('reports NotFound, Invalid and Conflict as ApiExceptions with upstream Status bodies', async () => {
    try {
      await core.readNamespacedConfigMap({ namespace: NS, name: 'nope' });
      assert.fail('read of a missing object succeeded');
    } catch (e: unknown) {
      const { code, body } = apiError(e);
      assert.equal(code, 404);
      assert.deepEqual(body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', kind: 'configmaps' },
        code: 404,
      });
    }
    try {
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'Bad_Name' } } });
      assert.fail('an invalid name was accepted');
    } catch (e: unknown) {
      const { code, body } = apiError(e);
      assert.equal(code, 422);
      assert.equal(body.reason, 'Invalid');
      assert.match(String(body.message), /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    }
    const current = await core.readNamespacedConfigMap({ namespace: NS, name: 'from-yaml' });
    await core.replaceNamespacedConfigMap({ namespace: NS, name: 'from-yaml', body: { ...current, data: { greeting: 'newer' } } });
    try {
      await core.replaceNamespacedConfigMap({ namespace: NS, name: 'from-yaml', body: { ...current, data: { greeting: 'stale' } } });
      assert.fail('a stale replace succeeded');
    } catch (e: unknown) {
      const { code, body } = apiError(e);
      assert.equal(code, 409);
      assert.equal(body.reason, 'Conflict');
      assert.equal(body.message, 'Operation cannot be fulfilled on configmaps "from-yaml": the object has been modified; please apply your changes to the latest version and try again');
    }
  });
});
