import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import type { Client, ResourceClient, ResourceRef } from '../../client/rest/interface.js';
import { builtinResource, CONFIG_MAPS, DEPLOYMENTS, NODES, PODS, REPLICA_SETS, SECRETS } from '../../client/rest/resources.js';
import type { KubeObject, OwnerReference } from '../../machinery/meta.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { AbsentOwnerCache } from './absent-owner-cache.js';
import { GarbageCollector, UnknownOwnerKindError } from './collector.js';
import { startGarbageCollector, type GarbageCollectorHandle } from './controller.js';
import { newResourceMapper } from './discovery.js';
import { DependencyGraph } from './graph.js';

const CLUSTER_ROLES = builtinResource('rbac.authorization.k8s.io', 'v1', 'clusterroles');

const apiVersionOf = (ref: ResourceRef): string => (ref.group === '' ? ref.version : `${ref.group}/${ref.version}`);

function ownerRef(ref: ResourceRef, owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: apiVersionOf(ref), kind: ref.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', ...extra };
}

function object(ref: ResourceRef, name: string, extra: { namespace?: string; owners?: OwnerReference[]; finalizers?: string[] } = {}): KubeObject {
  const namespace = ref.namespaced ? (extra.namespace ?? 'default') : undefined;
  return {
    apiVersion: apiVersionOf(ref),
    kind: ref.kind,
    metadata: {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(extra.owners !== undefined ? { ownerReferences: extra.owners } : {}),
      ...(extra.finalizers !== undefined ? { finalizers: extra.finalizers } : {}),
    },
  };
}

async function exists(client: FakeClient, ref: ResourceRef, name: string, namespace = 'default'): Promise<boolean> {
  try {
    await client.resource(ref).get(name, ref.namespaced ? { namespace } : {});
    return true;
  } catch {
    return false;
  }
}

const gone = (client: FakeClient, ref: ResourceRef, name: string, namespace?: string) => async (): Promise<boolean> => !(await exists(client, ref, name, namespace));

describe('garbage collector', () => {
  let t: TestContext;
  let gc: GarbageCollectorHandle;
  const start = (): void => {
    gc = startGarbageCollector(t.ctx);
    t.start();
  };
  afterEach(() => t.stop());

  it('background: deleting a Deployment removes its ReplicaSet, then the ReplicaSet’s pods', async () => {
    t = newTestContext();
    const [deploy] = t.client.seed(DEPLOYMENTS, [object(DEPLOYMENTS, 'web')]);
    const [rs] = t.client.seed(REPLICA_SETS, [object(REPLICA_SETS, 'web-1', { owners: [ownerRef(DEPLOYMENTS, deploy!, { controller: true, blockOwnerDeletion: true })] })]);
    t.client.seed(PODS, ['web-1-a', 'web-1-b'].map((n) => object(PODS, n, { owners: [ownerRef(REPLICA_SETS, rs!, { controller: true, blockOwnerDeletion: true })] })));
    t.client.seed(PODS, [object(PODS, 'bystander')]);
    start();
    await t.ctx.informers.waitForCacheSync();
    await t.client.resource(DEPLOYMENTS).delete('web', { namespace: 'default', propagationPolicy: 'Background' });
    await waitFor(gone(t.client, PODS, 'web-1-a'), { description: 'pod web-1-a deleted' });
    await waitFor(gone(t.client, PODS, 'web-1-b'));
    assert.equal(await exists(t.client, REPLICA_SETS, 'web-1'), false);
    assert.equal(await exists(t.client, PODS, 'bystander'), true);
    const deletes = t.client.actionsOf('delete').filter((a) => a.error === undefined);
    assert.deepEqual(deletes.map((a) => `${a.resource}/${a.name}`).sort(), ['deployments/web', 'pods/web-1-a', 'pods/web-1-b', 'replicasets/web-1']);
    // Each delete by the collector carries the uid it verified.
    for (const a of deletes.filter((d) => d.resource !== 'deployments')) {
      assert.equal((a.body as { propagationPolicy?: string }).propagationPolicy, 'Background');
      assert.notEqual((a.body as { preconditions?: { uid?: string } }).preconditions?.uid, undefined);
    }
  });

  it('foreground: blocking dependents go first, then each owner loses its finalizer in order', async () => {
    t = newTestContext();
    const [deploy] = t.client.seed(DEPLOYMENTS, [object(DEPLOYMENTS, 'web')]);
    const [rs] = t.client.seed(REPLICA_SETS, [object(REPLICA_SETS, 'web-1', { owners: [ownerRef(DEPLOYMENTS, deploy!, { blockOwnerDeletion: true })] })]);
    t.client.seed(PODS, ['p-1', 'p-2'].map((n) => object(PODS, n, { owners: [ownerRef(REPLICA_SETS, rs!, { blockOwnerDeletion: true })] })));
    // Not blocking: the Deployment does not wait for it, but it goes too.
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'loose', { owners: [ownerRef(DEPLOYMENTS, deploy!)] })]);
    start();
    await t.ctx.informers.waitForCacheSync();
    const marked = await t.client.resource(DEPLOYMENTS).delete('web', { namespace: 'default', propagationPolicy: 'Foreground' });
    assert.deepEqual(marked?.metadata.finalizers, ['foregroundDeletion']);
    await waitFor(gone(t.client, DEPLOYMENTS, 'web'), { description: 'the Deployment deleted' });
    await waitFor(gone(t.client, CONFIG_MAPS, 'loose'));
    assert.equal(await exists(t.client, REPLICA_SETS, 'web-1'), false);
    assert.equal(await exists(t.client, PODS, 'p-1'), false);
    const order = t.client.actions.filter((a) => a.error === undefined).map((a) => `${a.verb} ${a.resource}/${a.name}`);
    const at = (entry: string): number => {
      const i = order.indexOf(entry);
      assert.ok(i >= 0, `${entry} in ${order.join(', ')}`);
      return i;
    };
    // The ReplicaSet was deleted in the foreground (it has dependents), its pods in the background.
    const rsDelete = t.client.actionsOf('delete', 'replicasets').find((a) => a.error === undefined);
    assert.equal((rsDelete?.body as { propagationPolicy?: string }).propagationPolicy, 'Foreground');
    const rsRelease = at('patch replicasets/web-1');
    assert.ok(at('delete pods/p-1') < rsRelease && at('delete pods/p-2') < rsRelease, 'pods before the ReplicaSet finishes');
    assert.ok(rsRelease < at('patch deployments/web'), 'the ReplicaSet before the Deployment finishes');
  });

  it('orphan: the dependents lose the owner reference and stay; the owner goes', async () => {
    t = newTestContext();
    const [rs] = t.client.seed(REPLICA_SETS, [object(REPLICA_SETS, 'web-1')]);
    t.client.seed(PODS, [object(PODS, 'p-1', { owners: [ownerRef(REPLICA_SETS, rs!, { controller: true })] })]);
    start();
    await t.ctx.informers.waitForCacheSync();
    await t.client.resource(REPLICA_SETS).delete('web-1', { namespace: 'default', propagationPolicy: 'Orphan' });
    await waitFor(gone(t.client, REPLICA_SETS, 'web-1'), { description: 'the ReplicaSet deleted' });
    const pod = await t.client.resource(PODS).get('p-1', { namespace: 'default' });
    assert.equal(pod.metadata.ownerReferences, undefined);
    assert.equal(t.client.actionsOf('delete', 'pods').length, 0);
  });

  it('an object with several owners only loses the reference to the one deleted', async () => {
    t = newTestContext();
    const [a, b] = t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'owner-a'), object(CONFIG_MAPS, 'owner-b')]);
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'shared', { owners: [ownerRef(CONFIG_MAPS, a!), ownerRef(CONFIG_MAPS, b!)] })]);
    start();
    await t.ctx.informers.waitForCacheSync();
    await t.client.resource(CONFIG_MAPS).delete('owner-a', { namespace: 'default' });
    await waitFor(async () => (await t.client.resource(CONFIG_MAPS).get('shared', { namespace: 'default' })).metadata.ownerReferences?.length === 1, {
      description: 'the reference to owner-a removed',
    });
    const shared = await t.client.resource(CONFIG_MAPS).get('shared', { namespace: 'default' });
    assert.deepEqual(shared.metadata.ownerReferences?.map((r) => r.name), ['owner-b']);
    await t.client.resource(CONFIG_MAPS).delete('owner-b', { namespace: 'default' });
    await waitFor(gone(t.client, CONFIG_MAPS, 'shared'), { description: 'shared deleted with its last owner' });
  });

  it('an owner reference whose uid is not the live object’s (same name, new uid) is dangling: the dependent is deleted', async () => {
    t = newTestContext();
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'owner')]);
    const stale: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'the-old-uid' };
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'dependent', { owners: [stale] })]);
    start();
    await waitFor(gone(t.client, CONFIG_MAPS, 'dependent'), { description: 'the dependent of a replaced owner deleted' });
    assert.equal(await exists(t.client, CONFIG_MAPS, 'owner'), true);
  });

  it('an owner that never existed is verified absent with a GET, then its dependents are deleted', async () => {
    t = newTestContext();
    const ghost: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost', uid: 'ghost-uid' };
    t.client.seed(PODS, [object(PODS, 'haunted', { owners: [ghost] })]);
    start();
    await waitFor(gone(t.client, PODS, 'haunted'));
    assert.equal(gc.graph.get('ghost-uid'), undefined);
  });

  it('a cluster-scoped owner may own namespaced dependents', async () => {
    t = newTestContext();
    const [node] = t.client.seed(NODES, [object(NODES, 'node-1')]);
    t.client.seed(PODS, [object(PODS, 'on-node', { owners: [ownerRef(NODES, node!)] })]);
    start();
    await t.ctx.informers.waitForCacheSync();
    await t.client.resource(NODES).delete('node-1');
    await waitFor(gone(t.client, PODS, 'on-node'), { description: 'the pod of a deleted node collected' });
  });

  it('a dependent naming an owner of another namespace gets an OwnerRefInvalidNamespace Warning and is collected', async () => {
    t = newTestContext();
    const [owner] = t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'owner', { namespace: 'ns-a' })]);
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'stray', { namespace: 'ns-b', owners: [ownerRef(CONFIG_MAPS, owner!)] })]);
    start();
    await waitFor(gone(t.client, CONFIG_MAPS, 'stray', 'ns-b'), { description: 'the stray dependent collected' });
    assert.equal(await exists(t.client, CONFIG_MAPS, 'owner', 'ns-a'), true);
    const warning = t.events.find((e) => e.reason === 'OwnerRefInvalidNamespace');
    assert.deepEqual(warning && { component: warning.component, type: warning.type, object: warning.object.name, message: warning.message }, {
      component: 'garbage-collector-controller',
      type: 'Warning',
      object: 'stray',
      message: `ownerRef [v1/ConfigMap, namespace: ns-b, name: owner, uid: ${owner!.metadata.uid}] does not exist in namespace "ns-b"`,
    });
  });

  it('an owner deleted and re-created while the watch was down (folded into one relist update) releases the old one’s dependents', async () => {
    t = newTestContext();
    const [first] = t.client.seed(SECRETS, [object(SECRETS, 'owner')]);
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'child', { owners: [ownerRef(SECRETS, first!)] })]);
    start();
    await t.ctx.informers.waitForCacheSync();
    t.client.closeWatches(new StatusError({ code: 410, reason: 'Expired', message: 'too old resource version' }));
    await t.client.resource(SECRETS).delete('owner', { namespace: 'default' });
    await t.client.resource(SECRETS).create(object(SECRETS, 'owner'));
    await waitFor(gone(t.client, CONFIG_MAPS, 'child'), { description: 'the child of the replaced owner collected' });
    assert.equal(await exists(t.client, SECRETS, 'owner'), true);
  });

  it('a failed delete or a conflicting patch is retried until it lands', async () => {
    t = newTestContext();
    const [a] = t.client.seed(SECRETS, [object(SECRETS, 'a')]);
    const [b] = t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'b')]);
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'child-of-a', { owners: [ownerRef(SECRETS, a!)] })]);
    t.client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'child-of-both', { owners: [ownerRef(SECRETS, a!), ownerRef(CONFIG_MAPS, b!)] })]);
    start();
    await t.ctx.informers.waitForCacheSync();
    t.client.injectError('delete', 'configmaps', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }), 1);
    t.client.injectError('patch', 'configmaps', new StatusError({ code: 409, reason: 'Conflict', message: 'stale' }), 1);
    await t.client.resource(SECRETS).delete('a', { namespace: 'default' });
    await waitFor(gone(t.client, CONFIG_MAPS, 'child-of-a'), { description: 'child-of-a deleted after a failed try' });
    await waitFor(async () => (await t.client.resource(CONFIG_MAPS).get('child-of-both', { namespace: 'default' })).metadata.ownerReferences?.length === 1, {
      description: 'the reference to a removed after a conflict',
    });
    assert.ok(t.client.actionsOf('delete', 'configmaps').some((d) => d.error !== undefined), 'the failed delete happened');
    assert.ok(t.client.actionsOf('patch', 'configmaps').some((p) => p.error !== undefined), 'the conflicting patch happened');
  });
});

/** The collector alone, over a graph fed by hand: each step runs when the test says. */
describe('garbage collector workers', () => {
  const setup = () => {
    const client = newFakeClient();
    const queued: string[] = [];
    const absentOwners = new AbsentOwnerCache();
    const graph = new DependencyGraph(
      { attemptToDelete: (n) => queued.push(n.identity.uid), attemptToOrphan: () => {}, invalidNamespaceOwnerRef: () => {} },
      absentOwners,
    );
    const collector = new GarbageCollector({ client, graph, mapper: newResourceMapper(), absentOwners, enqueueDelete: (uid) => queued.push(uid) });
    const observe = (ref: ResourceRef, o: KubeObject): void =>
      graph.observe('add', { apiVersion: apiVersionOf(ref), kind: ref.kind, name: o.metadata.name!, uid: o.metadata.uid!, namespace: o.metadata.namespace ?? '' }, o.metadata);
    return { client, graph, collector, queued, observe };
  };

  it('a live owner the cache has not seen keeps its dependents; a failed owner lookup is an error, never an absence', async () => {
    const { client, collector, observe } = setup();
    const [rs] = client.seed(REPLICA_SETS, [object(REPLICA_SETS, 'alive')]);
    const [pod] = client.seed(PODS, [object(PODS, 'kept', { owners: [ownerRef(REPLICA_SETS, rs!)] })]);
    observe(PODS, pod!);
    client.injectError('get', 'replicasets', new StatusError({ code: 500, reason: 'InternalError', message: 'etcd is slow' }), 1);
    await assert.rejects(collector.attemptToDelete(pod!.metadata.uid!), /etcd is slow/);
    assert.equal(await collector.attemptToDelete(pod!.metadata.uid!), undefined);
    // The virtual owner exists: looked at again until an informer shows it.
    assert.deepEqual(await collector.attemptToDelete(rs!.metadata.uid!), { requeueAfterMs: 1000 });
    assert.equal(await exists(client, PODS, 'kept'), true);
    assert.equal(client.actionsOf('delete').length, 0);
  });

  it('a cluster-scoped dependent of a namespaced owner is left alone', async () => {
    const { client, collector, observe } = setup();
    const [cm] = client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'cm-owner')]);
    const [role] = client.seed(CLUSTER_ROLES, [object(CLUSTER_ROLES, 'odd', { owners: [ownerRef(CONFIG_MAPS, cm!)] })]);
    observe(CLUSTER_ROLES, role!);
    await client.resource(CONFIG_MAPS).delete('cm-owner', { namespace: 'default' });
    assert.equal(await collector.attemptToDelete(role!.metadata.uid!), undefined);
    // The virtual owner has no coordinates to look up from a cluster-scoped dependent: dropped.
    await collector.attemptToDelete(cm!.metadata.uid!);
    assert.equal(await exists(client, CLUSTER_ROLES, 'odd'), true);
    assert.equal(client.actionsOf('delete', 'clusterroles').length, 0);
  });

  it('an owner reference to a kind the cluster does not serve is retried, and its dependent kept', async () => {
    const { client, collector, observe } = setup();
    const [child] = client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'custom-child', { owners: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w-uid' }] })]);
    observe(CONFIG_MAPS, child!);
    await assert.rejects(collector.attemptToDelete(child!.metadata.uid!), UnknownOwnerKindError);
    await assert.rejects(collector.attemptToDelete('w-uid'), UnknownOwnerKindError);
    assert.equal(await exists(client, CONFIG_MAPS, 'custom-child'), true);
  });

  it('a dependent of a foreground owner whose own dependent deletes in the foreground is unblocked, then deleted in the foreground', async () => {
    const { client, collector, observe } = setup();
    const [a] = client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'a')]);
    const [b] = client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'b', { owners: [ownerRef(CONFIG_MAPS, a!, { blockOwnerDeletion: true })] })]);
    const [c] = client.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'c', { owners: [ownerRef(CONFIG_MAPS, b!, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] })]);
    const deletingA = await client.resource(CONFIG_MAPS).delete('a', { namespace: 'default', propagationPolicy: 'Foreground' });
    const deletingC = await client.resource(CONFIG_MAPS).delete('c', { namespace: 'default', propagationPolicy: 'Foreground' });
    observe(CONFIG_MAPS, deletingA!);
    observe(CONFIG_MAPS, b!);
    observe(CONFIG_MAPS, deletingC!);
    assert.equal(await collector.attemptToDelete(b!.metadata.uid!), undefined);
    const after = await client.resource(CONFIG_MAPS).get('b', { namespace: 'default' });
    assert.equal(after.metadata.ownerReferences?.[0]?.blockOwnerDeletion, false);
    assert.deepEqual(after.metadata.finalizers, ['foregroundDeletion']);
    assert.notEqual(after.metadata.deletionTimestamp, undefined);
    assert.notEqual(c, undefined);
  });

  it('a delete whose resourceVersion went stale is tried again at the live one when the owner references are unchanged, not otherwise', async () => {
    const base = newFakeClient();
    // A client whose first delete of each object races with another write to it.
    const bumped = new Set<string>();
    let change: (o: KubeObject) => KubeObject = (o) => ({ ...o, metadata: { ...o.metadata, labels: { touched: 'yes' } } });
    const racing: Client = {
      resource: <T extends KubeObject>(ref: ResourceRef): ResourceClient<T> => {
        const inner = base.resource<T>(ref);
        const wrapped = Object.create(inner) as ResourceClient<T>;
        wrapped.delete = async (name, options) => {
          if (!bumped.has(name)) {
            bumped.add(name);
            const current = await inner.get(name, options?.namespace !== undefined ? { namespace: options.namespace } : {});
            await inner.update(change(current) as T);
          }
          return inner.delete(name, options);
        };
        return wrapped;
      },
    };
    const absentOwners = new AbsentOwnerCache();
    const graph = new DependencyGraph({ attemptToDelete: () => {}, attemptToOrphan: () => {}, invalidNamespaceOwnerRef: () => {} }, absentOwners);
    const collector = new GarbageCollector({ client: racing, graph, mapper: newResourceMapper(), absentOwners, enqueueDelete: () => {} });
    const ghost: OwnerReference = { apiVersion: 'v1', kind: 'Secret', name: 'ghost', uid: 'ghost-uid' };
    const [status, adopted] = base.seed(CONFIG_MAPS, [object(CONFIG_MAPS, 'status-race', { owners: [ghost] }), object(CONFIG_MAPS, 'adopted', { owners: [ghost] })]);
    for (const o of [status!, adopted!]) graph.observe('add', { apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name!, uid: o.metadata.uid!, namespace: 'default' }, o.metadata);
    await collector.attemptToDelete(status!.metadata.uid!);
    assert.equal(await exists(base, CONFIG_MAPS, 'status-race'), false);
    // Another writer gives the object a live owner meanwhile: the stale decision is not applied.
    const [keeper] = base.seed(SECRETS, [object(SECRETS, 'keeper')]);
    change = (o) => ({ ...o, metadata: { ...o.metadata, ownerReferences: [...(o.metadata.ownerReferences ?? []), ownerRef(SECRETS, keeper!)] } });
    await assert.rejects(collector.attemptToDelete(adopted!.metadata.uid!), (e: unknown) => (e as { code?: number }).code === 409);
    assert.equal(await exists(base, CONFIG_MAPS, 'adopted'), true);
  });

  it('orphaning fails as a whole when a dependent cannot be patched, and keeps the finalizer', async () => {
    const { client, graph, collector, observe } = setup();
    const [rs] = client.seed(REPLICA_SETS, [object(REPLICA_SETS, 'web', { finalizers: ['orphan'] })]);
    const [pod] = client.seed(PODS, [object(PODS, 'p', { owners: [ownerRef(REPLICA_SETS, rs!)] })]);
    observe(REPLICA_SETS, rs!);
    observe(PODS, pod!);
    client.injectError('patch', 'pods', new StatusError({ code: 500, reason: 'InternalError', message: 'nope' }), 1);
    await assert.rejects(collector.attemptToOrphan(rs!.metadata.uid!), /failed to orphan dependents of owner web/);
    assert.deepEqual((await client.resource(REPLICA_SETS).get('web', { namespace: 'default' })).metadata.finalizers, ['orphan']);
    await collector.attemptToOrphan(rs!.metadata.uid!);
    assert.equal((await client.resource(REPLICA_SETS).get('web', { namespace: 'default' })).metadata.finalizers, undefined);
    assert.equal((await client.resource(PODS).get('p', { namespace: 'default' })).metadata.ownerReferences, undefined);
    assert.equal(graph.get('nobody'), undefined);
    assert.equal(await collector.attemptToDelete('nobody'), undefined);
    await collector.attemptToOrphan('nobody');
  });
});
