import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import type { ResourceRef } from '../../client/rest/interface.js';
import { CONFIG_MAPS, NAMESPACES, PODS, SECRETS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { namespacedDeletableResources } from './discovery.js';
import type { NamespaceCondition } from './conditions.js';
import { startNamespaceController } from './controller.js';
import { NamespaceDeleter, ResourcesRemainingError } from './deleter.js';

const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const inNs = (ref: ResourceRef, name: string, namespace: string, extra: Partial<KubeObject['metadata']> = {}, fields: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: ref.group === '' ? ref.version : `${ref.group}/${ref.version}`,
  kind: ref.kind,
  metadata: { name, namespace, ...extra },
  ...fields,
});

async function namespaceGone(client: FakeClient, name: string): Promise<boolean> {
  try {
    await client.resource(NAMESPACES).get(name);
    return false;
  } catch {
    return true;
  }
}

async function conditionsOf(client: FakeClient, name: string): Promise<Record<string, NamespaceCondition>> {
  const object = await client.resource(NAMESPACES).get(name);
  const conditions = ((object.status as { conditions?: NamespaceCondition[] } | undefined)?.conditions ?? []);
  return Object.fromEntries(conditions.map((c) => [c.type, c]));
}

const names = async (client: FakeClient, ref: ResourceRef, namespace: string): Promise<string[]> =>
  (await client.resource(ref).list({ namespace })).items.map((o) => o.metadata.name ?? '').sort();

describe('namespace controller', () => {
  let t: TestContext;
  afterEach(() => t.stop());

  it('deleting a namespace deletes its content, then releases the namespace, which goes', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('team'), ns('other')]);
    t.client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'a', 'team'), inNs(CONFIG_MAPS, 'b', 'team'), inNs(CONFIG_MAPS, 'keep', 'other')]);
    t.client.seed(SECRETS, [inNs(SECRETS, 's', 'team')]);
    t.client.seed(PODS, [inNs(PODS, 'unscheduled', 'team')]);
    startNamespaceController(t.ctx, { deletionGracePeriodMs: 0 });
    t.start();
    const marked = await t.client.resource(NAMESPACES).delete('team');
    assert.equal((marked?.status as { phase?: string }).phase, 'Terminating');
    await waitFor(() => namespaceGone(t.client, 'team'), { description: 'namespace team deleted' });
    assert.deepEqual(await names(t.client, CONFIG_MAPS, 'team'), []);
    assert.deepEqual(await names(t.client, SECRETS, 'team'), []);
    assert.deepEqual(await names(t.client, PODS, 'team'), []);
    assert.deepEqual(await names(t.client, CONFIG_MAPS, 'other'), ['keep']);
    // Content is deleted with background propagation; the namespace is released through /finalize.
    const deletes = t.client.actionsOf('delete').filter((a) => a.resource !== 'namespaces');
    assert.ok(deletes.every((a) => (a.body as { propagationPolicy?: string }).propagationPolicy === 'Background'));
    assert.equal(t.client.actionsOf('update', 'namespaces/finalize').length, 1);
    // Pods went first.
    assert.equal(deletes[0]?.resource, 'pods');
  });

  it('a namespace stuck on a finalizer reports what remains in its conditions, and goes once the finalizer is gone', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('stuck')]);
    t.client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'held', 'stuck', { finalizers: ['example.com/hold'] }), inNs(CONFIG_MAPS, 'free', 'stuck')]);
    const loop = startNamespaceController(t.ctx, { deletionGracePeriodMs: 0 });
    t.start();
    await t.client.resource(NAMESPACES).delete('stuck');
    await waitFor(async () => (await conditionsOf(t.client, 'stuck'))['NamespaceContentRemaining']?.status === 'True', { description: 'conditions written' });
    const c = await conditionsOf(t.client, 'stuck');
    assert.deepEqual(
      [c['NamespaceContentRemaining']?.reason, c['NamespaceContentRemaining']?.message],
      ['SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances'],
    );
    assert.deepEqual(
      [c['NamespaceFinalizersRemaining']?.reason, c['NamespaceFinalizersRemaining']?.message],
      ['SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances'],
    );
    assert.equal(c['NamespaceDeletionContentFailure']?.status, 'False');
    assert.equal(c['NamespaceDeletionDiscoveryFailure']?.reason, 'ResourcesDiscovered');
    assert.deepEqual(await names(t.client, CONFIG_MAPS, 'stuck'), ['held']);
    assert.equal(await namespaceGone(t.client, 'stuck'), false);
    // Whoever holds the finalizer lets go; the next pass (the requeue's, here at once) releases the namespace.
    await t.client.resource(CONFIG_MAPS).patch('held', 'merge', { metadata: { finalizers: null } }, { namespace: 'stuck' });
    loop.enqueue('stuck');
    await waitFor(() => namespaceGone(t.client, 'stuck'), { description: 'namespace stuck deleted' });
  });

  it('pods go first: nothing else is deleted while a pod remains', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('ordered')]);
    t.client.seed(PODS, [inNs(PODS, 'lingering', 'ordered', { finalizers: ['example.com/cleanup'] })]);
    t.client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'policy', 'ordered')]);
    const loop = startNamespaceController(t.ctx, { deletionGracePeriodMs: 0 });
    t.start();
    await t.client.resource(NAMESPACES).delete('ordered');
    await waitFor(async () => (await conditionsOf(t.client, 'ordered'))['NamespaceContentRemaining']?.message === 'Some resources are remaining: pods. has 1 resource instances');
    assert.deepEqual(await names(t.client, CONFIG_MAPS, 'ordered'), ['policy']);
    assert.equal(t.client.actionsOf('delete', 'configmaps').length, 0);
    await t.client.resource(PODS).patch('lingering', 'merge', { metadata: { finalizers: null } }, { namespace: 'ordered' });
    loop.enqueue('ordered');
    await waitFor(() => namespaceGone(t.client, 'ordered'));
    assert.equal(t.client.actionsOf('delete', 'configmaps').length, 1);
  });

  it('a failure to delete content is reported as NamespaceDeletionContentFailure and retried', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('flaky')]);
    t.client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'x', 'flaky')]);
    t.client.injectError('delete', 'configmaps', new StatusError({ code: 500, reason: 'InternalError', message: 'storage hiccup' }), 1);
    startNamespaceController(t.ctx, { deletionGracePeriodMs: 0 });
    t.start();
    await t.client.resource(NAMESPACES).delete('flaky');
    await waitFor(() => namespaceGone(t.client, 'flaky'), { description: 'namespace flaky deleted after a retry' });
    const statusWrites = t.client.actionsOf('update', 'namespaces/status').map((a) => a.body as { status?: { conditions?: NamespaceCondition[] } });
    const failure = statusWrites
      .flatMap((b) => b.status?.conditions ?? [])
      .find((c) => c.type === 'NamespaceDeletionContentFailure' && c.status === 'True');
    assert.equal(failure?.reason, 'ContentDeletionFailed');
    assert.equal(failure?.message, 'Failed to delete all resource types, 1 remaining: storage hiccup');
  });

  it('re-checks namespaces every --namespace-sync-period', async () => {
    t = newTestContext({ options: { namespaceSyncPeriodMs: 20 } });
    t.client.seed(NAMESPACES, [ns('later')]);
    t.client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'held', 'later', { finalizers: ['example.com/hold'] })]);
    startNamespaceController(t.ctx, { deletionGracePeriodMs: 0 });
    t.start();
    await t.client.resource(NAMESPACES).delete('later');
    await waitFor(async () => (await conditionsOf(t.client, 'later'))['NamespaceFinalizersRemaining']?.status === 'True');
    await t.client.resource(CONFIG_MAPS).patch('held', 'merge', { metadata: { finalizers: null } }, { namespace: 'later' });
    // No explicit enqueue: the resync finds the namespace again.
    await waitFor(() => namespaceGone(t.client, 'later'), { description: 'namespace later deleted on resync' });
  });
});

describe('NamespaceDeleter', () => {
  const deleterFor = (client: FakeClient, now?: () => Date): NamespaceDeleter =>
    new NamespaceDeleter({ client, resources: namespacedDeletableResources(), ...(now !== undefined ? { now } : {}) });

  it('does nothing to a namespace that is not being deleted, or is gone', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [ns('active')]);
    client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'c', 'active')]);
    const deleter = deleterFor(client);
    await deleter.delete('active');
    await deleter.delete('missing');
    assert.deepEqual(client.actions, []);
  });

  it('waits for running pods’ grace period: content remains with an estimate', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [ns('graceful')]);
    client.seed(PODS, [inNs(PODS, 'running', 'graceful', {}, { spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 30 }, status: { phase: 'Running' } })]);
    await client.resource(NAMESPACES).delete('graceful');
    const deleter = deleterFor(client);
    await assert.rejects(deleter.delete('graceful'), (e: unknown) => e instanceof ResourcesRemainingError && e.estimateSeconds === 30);
    // The pod is marked; the kubelet would finish it.
    const pod = await client.resource(PODS).get('running', { namespace: 'graceful' });
    assert.notEqual(pod.metadata.deletionTimestamp, undefined);
    await client.resource(PODS).delete('running', { namespace: 'graceful', gracePeriodSeconds: 0 });
    await deleter.delete('graceful');
    assert.equal(await namespaceGone(client, 'graceful'), true);
  });

  it('a pod still there after its grace period, without finalizers, is an error', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [ns('late')]);
    client.seed(PODS, [inNs(PODS, 'stubborn', 'late', {}, { spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 1 }, status: { phase: 'Running' } })]);
    await client.resource(NAMESPACES).delete('late');
    const later = (): Date => new Date(Date.now() + 60_000);
    await assert.rejects(deleterFor(client, later).delete('late'), /unexpected items still remain in namespace: late/);
    const c = await conditionsOf(client, 'late');
    assert.equal(c['NamespaceDeletionContentFailure']?.status, 'True');
  });

  it('keeps other spec.finalizers: the namespace stays until they are gone', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [{ ...ns('shared'), spec: { finalizers: ['kubernetes', 'example.com/other'] } }]);
    await client.resource(NAMESPACES).delete('shared');
    await deleterFor(client).delete('shared');
    const after = await client.resource(NAMESPACES).get('shared');
    assert.deepEqual((after.spec as { finalizers?: string[] }).finalizers, ['example.com/other']);
  });

  it('a failed condition update does not hold the deletion back (the next pass writes them)', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [ns('quiet')]);
    client.seed(CONFIG_MAPS, [inNs(CONFIG_MAPS, 'c', 'quiet')]);
    await client.resource(NAMESPACES).delete('quiet');
    client.injectError('update', 'namespaces/status', new StatusError({ code: 500, reason: 'InternalError', message: 'status write failed' }), 1);
    await deleterFor(client).delete('quiet');
    assert.equal(await namespaceGone(client, 'quiet'), true);
    assert.ok(client.actionsOf('update', 'namespaces/status').some((a) => a.error !== undefined));
  });

  it('marks a terminating namespace whose phase is not Terminating yet, then goes on', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [{ ...ns('phased'), spec: { finalizers: ['kubernetes', 'example.com/other'] } }]);
    await client.resource(NAMESPACES).delete('phased');
    const current = await client.resource(NAMESPACES).get('phased');
    await client.resource(NAMESPACES).updateStatus({ ...current, status: { phase: 'Active' } });
    client.clearActions();
    await deleterFor(client).delete('phased');
    const first = client.actionsOf('update', 'namespaces/status')[0]?.body as { status?: { phase?: string } } | undefined;
    assert.equal(first?.status?.phase, 'Terminating');
    assert.equal(((await client.resource(NAMESPACES).get('phased')).status as { phase?: string }).phase, 'Terminating');
  });

  it('a failed finalize is an error to retry', async () => {
    const client = newFakeClient();
    client.seed(NAMESPACES, [ns('stubborn')]);
    await client.resource(NAMESPACES).delete('stubborn');
    client.injectError('update', 'namespaces/finalize', new StatusError({ code: 409, reason: 'Conflict', message: 'try again' }), 1);
    const deleter = deleterFor(client);
    await assert.rejects(deleter.delete('stubborn'), /try again/);
    await deleter.delete('stubborn');
    assert.equal(await namespaceGone(client, 'stubborn'), true);
  });
});
