/**
 * The HTTP client against a real `k8ts apiserver` on loopback, with the admin
 * kubeconfig it writes: CRUD, selectors and paging, watches, errors as
 * StatusErrors, every patch type, deletes, subresources, and the
 * lister-watcher driving a Reflector.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newInformerFactory } from '../../../src/client/cache/informer-factory.js';
import { Reflector, type ReflectorChange } from '../../../src/client/cache/reflector.js';
import { newHttpClient, type HttpClient } from '../../../src/client/rest/http-client.js';
import type { WatchEvent } from '../../../src/client/rest/interface.js';
import { restConfigFromKubeconfig } from '../../../src/client/rest/kubeconfig.js';
import { listerWatcherFor } from '../../../src/client/cache/resource-lister-watcher.js';
import { CONFIG_MAPS, DEPLOYMENTS, PODS, SERVICE_ACCOUNTS } from '../../../src/client/rest/resources.js';
import { defaultUserAgent } from '../../../src/client/rest/rest-config.js';
import type { KubeObject } from '../../../src/machinery/meta.js';
import { isConflict, isNotFound, isResourceExpired, StatusError } from '../../../src/machinery/status.js';
import { startK8ts, type K8tsProcess } from '../testing/k8ts-process.js';

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Pod = KubeObject & { spec: { nodeName?: string; containers: { name: string; image: string; env?: { name: string; value: string }[] }[] } };
type Scale = KubeObject & { spec: { replicas?: number }; status?: { replicas?: number } };
type Container = { name: string; image: string; env?: { name: string; value: string }[] };
type Deployment = KubeObject & { spec: { replicas?: number; template: { spec: { containers: Container[] } } } };

const NS = 'default';
const configMap = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels },
  data,
});
const pod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { containers: [{ name: 'main', image: 'busybox', env: [{ name: 'A', value: '1' }] }] },
});

const deployment = (name: string): Deployment =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx', env: [{ name: 'A', value: '1' }] }] } },
    },
  }) as Deployment;

/** Collect `count` events of a watch, or fail at the deadline. */
async function take<T>(stream: AsyncIterable<WatchEvent<T>> & { cancel(): void }, count: number, timeoutMs = 15_000): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  const timer = setTimeout(() => stream.cancel(), timeoutMs);
  try {
    for await (const e of stream) {
      events.push(e);
      if (events.length === count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  assert.equal(events.length, count, `watch got ${events.length} of ${count} events`);
  return events;
}

describe('REST client against k8ts apiserver', () => {
  let root: string;
  let server: K8tsProcess;
  let client: HttpClient;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'k8ts-rest-client-'));
    server = startK8ts(['apiserver', '--data-dir', join(root, 'data'), '--secure-port', '0', '--bind-address', '127.0.0.1', '--etcd-compaction-interval', '2s']);
    const line = await server.waitForLine(/^export KUBECONFIG=/, 60_000);
    await server.waitForLine(/^apiserver: serving on/, 60_000);
    const kubeconfig = line.slice('export KUBECONFIG='.length).trim();
    client = newHttpClient(restConfigFromKubeconfig(kubeconfig, { userAgent: defaultUserAgent('rest-client-e2e') }));
    // No controller manager: the test makes the ServiceAccount pods need (ServiceAccount admission).
    await client.resource(SERVICE_ACCOUNTS).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } });
  });
  after(async () => {
    client?.close();
    await server?.stop();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('creates, gets, updates and deletes a configmap; a missing one is NotFound', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    const created = await cms.create(configMap('crud', {}, { a: '1' }));
    assert.ok(created.metadata.uid);
    assert.ok(created.metadata.managedFields?.some((f) => f.manager === 'k8ts'));
    const got = await cms.get('crud', { namespace: NS });
    assert.deepEqual(got.data, { a: '1' });
    const updated = await cms.update({ ...got, data: { a: '2' } });
    assert.deepEqual(updated.data, { a: '2' });
    assert.equal(await cms.delete('crud', { namespace: NS }), undefined);
    const error = await cms.get('crud', { namespace: NS }).catch((e: unknown) => e);
    assert.ok(isNotFound(error), String(error));
    assert.equal((error as StatusError).message, 'configmaps "crud" not found');
  });

  it('rejects a stale update with 409 Conflict', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    const created = await cms.create(configMap('stale'));
    await cms.update({ ...created, data: { x: '1' } });
    const error = await cms.update({ ...created, data: { x: '2' } }).catch((e: unknown) => e);
    assert.ok(isConflict(error), String(error));
    assert.equal((error as StatusError).code, 409);
  });

  it('lists with label and field selectors, and pages with limit and continue', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    for (let i = 0; i < 5; i++) await cms.create(configMap(`page-${i}`, { suite: 'paging', parity: i % 2 === 0 ? 'even' : 'odd' }));
    const even = await cms.list({ namespace: NS, labelSelector: 'suite=paging,parity=even' });
    assert.deepEqual(even.items.map((c) => c.metadata.name), ['page-0', 'page-2', 'page-4']);
    const one = await cms.list({ namespace: NS, labelSelector: 'suite=paging', fieldSelector: 'metadata.name=page-3' });
    assert.deepEqual(one.items.map((c) => c.metadata.name), ['page-3']);
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await cms.list({ namespace: NS, labelSelector: 'suite=paging', limit: 2, ...(token === undefined ? {} : { continue: token }) });
      names.push(...page.items.map((c) => c.metadata.name!));
      token = page.metadata.continue;
      pages++;
    } while (token !== undefined && token !== '');
    assert.deepEqual(names, ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
    assert.equal(pages, 3);
    const all = await client.resource<ConfigMap>(CONFIG_MAPS).list({ labelSelector: 'suite=paging' });
    assert.equal(all.items.length, 5);
  });

  it('watches ADDED, MODIFIED and DELETED in order from a list resourceVersion', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    const list = await cms.list({ namespace: NS, labelSelector: 'suite=watch' });
    const stream = cms.watch({ namespace: NS, labelSelector: 'suite=watch', resourceVersion: list.metadata.resourceVersion!, allowWatchBookmarks: true });
    const events = take(stream, 3);
    const created = await cms.create(configMap('watched', { suite: 'watch' }));
    await cms.update({ ...created, data: { b: '1' } });
    await cms.delete('watched', { namespace: NS });
    const got = (await events).filter((e) => e.type !== 'BOOKMARK');
    assert.deepEqual(got.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
    assert.deepEqual(got[1]!.object.data, { b: '1' });
    stream.cancel();
  });

  it('fails a list and a watch from a compacted resourceVersion with 410', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    // The store compacts every 2 s to the revision of the tick before: poll (with a deadline) until revision 1 is gone.
    const deadline = Date.now() + 30_000;
    let listError: unknown;
    for (;;) {
      listError = await cms.list({ namespace: NS, resourceVersion: '1', resourceVersionMatch: 'Exact' }).then(() => undefined, (e: unknown) => e);
      if (listError !== undefined || Date.now() > deadline) break;
      await cms.create(configMap(`compaction-${Date.now()}`, { suite: 'compaction' }));
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(isResourceExpired(listError), String(listError));
    assert.equal((listError as StatusError).code, 410);
    const watchError = await (async () => {
      for await (const _ of cms.watch({ namespace: NS, resourceVersion: '1' })) void _;
    })().then(() => undefined, (e: unknown) => e);
    assert.ok(isResourceExpired(watchError), String(watchError));
    assert.match((watchError as StatusError).message, /too old resource version/);
  });

  it('patches with each patch type', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    await cms.create(configMap('patched', {}, { a: '1' }));
    const json = await cms.patch('patched', 'json', [{ op: 'add', path: '/data/b', value: '2' }], { namespace: NS });
    assert.deepEqual(json.data, { a: '1', b: '2' });
    const merge = await cms.patch('patched', 'merge', { data: { a: null, c: '3' } }, { namespace: NS });
    assert.deepEqual(merge.data, { b: '2', c: '3' });
    const applied = await cms.patch('patched', 'apply', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: patched\ndata:\n  d: "4"\n', {
      namespace: NS,
      fieldManager: 'e2e-applier',
      force: true,
    });
    assert.equal(applied.data?.['d'], '4');
    assert.ok(applied.metadata.managedFields?.some((f) => f.manager === 'e2e-applier' && f.operation === 'Apply'));
    const deployments = client.resource<Deployment>(DEPLOYMENTS);
    await deployments.create(deployment('strategic'));
    const strategic = await deployments.patch('strategic', 'strategic', { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'B', value: '2' }] }] } } } }, { namespace: NS });
    const container = strategic.spec.template.spec.containers[0]!;
    assert.deepEqual(container.env, [{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
    assert.equal(container.image, 'nginx');
    const dry = await cms.patch('patched', 'merge', { data: { e: '5' } }, { namespace: NS, dryRun: true });
    assert.equal(dry.data?.['e'], '5');
    assert.equal((await cms.get('patched', { namespace: NS })).data?.['e'], undefined);
  });

  it('binds a pod to a node through pods/binding, and deletes a bound pod gracefully', async () => {
    const pods = client.resource<Pod>(PODS);
    await pods.create(pod('bound'));
    const status = await pods.createSubresource<KubeObject & { status?: string }>('bound', 'binding', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'bound', namespace: NS },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    }, { namespace: NS });
    assert.equal(status.kind, 'Status');
    assert.equal((await pods.get('bound', { namespace: NS })).spec.nodeName, 'node-a');
    // No kubelet confirms: the pod stays, marked for deletion, for its grace period.
    const marked = await pods.delete('bound', { namespace: NS, gracePeriodSeconds: 30 });
    assert.ok(marked?.metadata.deletionTimestamp);
    assert.equal(marked?.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(await pods.delete('bound', { namespace: NS, gracePeriodSeconds: 0 }), undefined);
    assert.ok(isNotFound(await pods.get('bound', { namespace: NS }).catch((e: unknown) => e)));
  });

  it('deletes with a propagation policy: Foreground keeps the object behind its finalizer', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    await cms.create(configMap('foreground'));
    const marked = await cms.delete('foreground', { namespace: NS, propagationPolicy: 'Foreground' });
    assert.deepEqual(marked?.metadata.finalizers, ['foregroundDeletion']);
    // No garbage collector runs here: remove the finalizer as it would, and the object goes.
    await cms.patch('foreground', 'merge', { metadata: { finalizers: null } }, { namespace: NS });
    assert.ok(isNotFound(await cms.get('foreground', { namespace: NS }).catch((e: unknown) => e)));
    await cms.create(configMap('background'));
    assert.equal(await cms.delete('background', { namespace: NS, propagationPolicy: 'Background' }), undefined);
    const precondition = await cms.create(configMap('precondition'));
    const error = await cms.delete('precondition', { namespace: NS, preconditions: { resourceVersion: '1' } }).catch((e: unknown) => e);
    assert.ok(isConflict(error), String(error));
    assert.equal(await cms.delete('precondition', { namespace: NS, preconditions: { uid: precondition.metadata.uid! } }), undefined);
  });

  it('gets and updates a deployment through its scale subresource', async () => {
    const deployments = client.resource<Deployment>(DEPLOYMENTS);
    await deployments.create(deployment('web'));
    const scale = await deployments.getSubresource<Scale>('web', 'scale', { namespace: NS });
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 1);
    const updated = await deployments.updateSubresource<Scale>('web', 'scale', { ...scale, spec: { replicas: 3 } }, { namespace: NS });
    assert.equal(updated.spec.replicas, 3);
    assert.equal((await deployments.get('web', { namespace: NS })).spec.replicas, 3);
    const patched = await deployments.patch('web', 'merge', { spec: { replicas: 2 } }, { namespace: NS, subresource: 'scale' });
    assert.equal((patched as unknown as Scale).spec.replicas, 2);
  });

  it('drives a Reflector to a synced store through the lister-watcher', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    await cms.create(configMap('reflected-0', { suite: 'reflector' }));
    const items = new Map<string, ConfigMap>();
    const waiters: (() => void)[] = [];
    const store = {
      replace(list: readonly ConfigMap[]): void {
        items.clear();
        for (const o of list) items.set(o.metadata.name!, o);
      },
      apply(change: ReflectorChange<ConfigMap>): void {
        if (change.type === 'DELETED') items.delete(change.object.metadata.name!);
        else items.set(change.object.metadata.name!, change.object);
        for (const w of waiters.splice(0)) w();
      },
      progress(): void {},
    };
    const until = async (check: () => boolean): Promise<void> => {
      const deadline = Date.now() + 15_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`store never got there: ${[...items.keys()].join(', ')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    };
    const errors: unknown[] = [];
    const reflector = new Reflector(listerWatcherFor(cms, { namespace: NS, labelSelector: 'suite=reflector' }), store, {
      name: 'configmaps',
      onError: (_m, e) => errors.push(e),
    });
    reflector.start();
    try {
      await reflector.synced;
      assert.deepEqual([...items.keys()], ['reflected-0']);
      await cms.create(configMap('reflected-1', { suite: 'reflector' }));
      await cms.create(configMap('other', { suite: 'not-this' }));
      await cms.delete('reflected-0', { namespace: NS });
      await until(() => items.has('reflected-1') && !items.has('reflected-0'));
      assert.deepEqual([...items.keys()], ['reflected-1']);
      assert.deepEqual(errors, []);
    } finally {
      reflector.stop();
    }
  });

  it('feeds an informer factory: synced cache and ordered handler calls', async () => {
    const cms = client.resource<ConfigMap>(CONFIG_MAPS);
    await cms.create(configMap('informed-0', { suite: 'informer' }));
    const factory = newInformerFactory(client);
    const informer = factory.informerFor<ConfigMap>(CONFIG_MAPS, { namespace: NS, labelSelector: 'suite=informer' });
    const calls: string[] = [];
    let wake: (() => void) | undefined;
    informer.addEventHandler({
      onAdd: (o, initial) => void (calls.push(`add ${o.metadata.name} ${initial}`), wake?.()),
      onUpdate: (_old, o) => void (calls.push(`update ${o.metadata.name} ${o.data?.['v'] ?? ''}`), wake?.()),
      onDelete: (o) => void (calls.push(`delete ${o.metadata.name}`), wake?.()),
    });
    factory.start();
    try {
      await factory.waitForCacheSync(AbortSignal.timeout(15_000));
      assert.deepEqual(informer.indexer.list().map((o) => o.metadata.name), ['informed-0']);
      const created = await cms.create(configMap('informed-1', { suite: 'informer' }));
      await cms.update({ ...created, data: { v: '2' } });
      await cms.delete('informed-0', { namespace: NS });
      const deadline = Date.now() + 15_000;
      while (calls.length < 4 && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
      assert.deepEqual(calls, ['add informed-0 true', 'add informed-1 false', 'update informed-1 2', 'delete informed-0']);
      assert.deepEqual(informer.indexer.list().map((o) => o.metadata.name), ['informed-1']);
    } finally {
      factory.stop();
    }
  });
});
