import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isInvalid, StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import type { StoreWatch } from '../../generic/store.js';
import { Registry } from '../../registry.js';

async function setup(watchCache: boolean) {
  const backing = newMemoryStorage();
  const registry = new Registry({
    scheme: newBuiltinScheme(),
    storage: new ObjectStorage(backing),
    prefix: '/registry',
    definitions: builtinDefinitions(),
    ...(watchCache ? {} : { watchCache: false as const }),
  });
  await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return { backing, registry, core: registry.store('', 'v1', 'events'), events: registry.store('events.k8s.io', 'v1', 'events') };
}

const coreEvent = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default' },
  reason: 'Pulled',
  message: 'pulled the image',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-06-01T12:00:00Z',
  lastTimestamp: '2024-06-01T12:00:05Z',
  count: 2,
  type: 'Normal',
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
  ...extra,
});

const newEvent = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  eventTime: '2024-06-01T12:00:00.123456Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-1',
  action: 'Reconcile',
  reason: 'Synced',
  regarding: { kind: 'Deployment', name: 'web', namespace: 'default', apiVersion: 'apps/v1' },
  note: 'synced the deployment',
  type: 'Normal',
  ...extra,
});

async function next(watch: StoreWatch): Promise<{ type: string; object: KubeObject }> {
  const it = watch[Symbol.asyncIterator]();
  const r = await it.next();
  assert.equal(r.done, false);
  return r.value;
}

for (const watchCache of [false, true]) {
  describe(`Event in two versions (watch cache ${watchCache ? 'on' : 'off'})`, () => {
    it('stores a core/v1 event as core/v1 under /registry/events and reads it as events.k8s.io/v1', async () => {
      const { backing, core, events } = await setup(watchCache);
      await core.create('default', coreEvent('a'));
      const raw = await backing.get('/registry/events/default/a');
      const stored = JSON.parse(Buffer.from(raw!.value).toString('utf8')) as Record<string, unknown>;
      assert.equal(stored.apiVersion, 'v1');
      assert.equal(stored.message, 'pulled the image');
      assert.equal(stored.reportingComponent, 'kubelet');
      const read = await events.get('default', 'a');
      assert.equal(read.apiVersion, 'events.k8s.io/v1');
      assert.equal(read.note, 'pulled the image');
      assert.deepEqual(read.regarding, { kind: 'Pod', name: 'web-1', namespace: 'default' });
      assert.deepEqual(read.deprecatedSource, { component: 'kubelet', host: 'node-1' });
      assert.equal(read.deprecatedCount, 2);
      assert.equal(read.reportingController, 'kubelet');
      assert.equal(read.message, undefined);
    });

    it('stores an events.k8s.io/v1 event as core/v1 and reads it back in both versions', async () => {
      const { backing, core, events } = await setup(watchCache);
      const created = await events.create('default', newEvent('b'));
      assert.equal(created.apiVersion, 'events.k8s.io/v1');
      assert.equal(created.note, 'synced the deployment');
      const raw = await backing.get('/registry/events/default/b');
      const stored = JSON.parse(Buffer.from(raw!.value).toString('utf8')) as Record<string, unknown>;
      assert.equal(stored.apiVersion, 'v1');
      assert.equal(stored.reportingComponent, 'example.com/controller');
      assert.equal(stored.note, undefined);
      const read = await core.get('default', 'b');
      assert.equal(read.apiVersion, 'v1');
      assert.equal(read.message, 'synced the deployment');
      assert.equal(read.involvedObject !== undefined, true);
    });

    it('lists in each version with that version’s field labels', async () => {
      const { core, events, registry } = await setup(watchCache);
      await core.create('default', coreEvent('a'));
      await events.create('default', newEvent('b'));
      const list = await events.list('default', {
        predicate: (o) => (registry.store('events.k8s.io', 'v1', 'events').strategy.selectableFields?.['regarding.kind']?.(o) ?? '') === 'Deployment',
      });
      assert.equal(list.apiVersion, 'events.k8s.io/v1');
      assert.deepEqual(list.items.map((i) => i.metadata.name), ['b']);
      assert.equal(list.items[0]!.apiVersion, 'events.k8s.io/v1');
      const byController = await core.list('default', { predicate: (o) => core.strategy.selectableFields?.['reportingComponent']?.(o) === 'kubelet' });
      assert.deepEqual(byController.items.map((i) => i.metadata.name), ['a']);
      assert.equal(byController.items[0]!.apiVersion, 'v1');
    });

    it('watches in both versions at once, each watcher in its own version', async () => {
      const { core, events } = await setup(watchCache);
      const start = await core.list('default');
      const coreWatch = await core.watch('default', { resourceVersion: start.metadata.resourceVersion! });
      const eventsWatch = await events.watch('default', { resourceVersion: start.metadata.resourceVersion! });
      await core.create('default', coreEvent('a'));
      const c = await next(coreWatch);
      const e = await next(eventsWatch);
      assert.equal(c.object.apiVersion, 'v1');
      assert.equal(c.object.message, 'pulled the image');
      assert.equal(e.object.apiVersion, 'events.k8s.io/v1');
      assert.equal(e.object.note, 'pulled the image');
      coreWatch.cancel();
      eventsWatch.cancel();
    });

    it('validates an events.k8s.io/v1 create strictly and a core/v1 one by the legacy rules', async () => {
      const { core, events } = await setup(watchCache);
      const { eventTime: _, ...noTime } = newEvent('c');
      const error = await events.create('default', noTime as KubeObject).then(
        () => assert.fail('created an event without eventTime'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof StatusError && isInvalid(error));
      assert.equal(error.status.message, 'Event.events.k8s.io "c" is invalid: eventTime: Required value');
      // The same object through core/v1 (old-style: no eventTime) passes.
      await core.create('default', coreEvent('c'));
    });

    it('updates through one version an object created in the other, keeping every field', async () => {
      const { core, events } = await setup(watchCache);
      await events.create('default', newEvent('d', { series: { count: 2, lastObservedTime: '2024-06-01T12:01:00.000000Z' } }));
      const { object } = await core.update('default', 'd', (current) => ({ ...current!, series: { count: 3, lastObservedTime: '2024-06-01T12:02:00.000000Z' } }));
      assert.equal(object.apiVersion, 'v1');
      const read = await events.get('default', 'd');
      assert.deepEqual(read.series, { count: 3, lastObservedTime: '2024-06-01T12:02:00.000000Z' });
      assert.equal(read.note, 'synced the deployment');
      assert.equal(read.reportingController, 'example.com/controller');
    });

    it('answers dry runs in the served version and stores nothing', async () => {
      const { backing, core, events } = await setup(watchCache);
      const dry = await events.create('default', newEvent('dry'), { dryRun: true });
      assert.equal(dry.apiVersion, 'events.k8s.io/v1');
      assert.equal(dry.note, 'synced the deployment');
      assert.equal(await backing.get('/registry/events/default/dry'), undefined);
      const dryPut = await events.update('default', 'dry', () => newEvent('dry'), { dryRun: true });
      assert.equal(dryPut.object.apiVersion, 'events.k8s.io/v1');
      assert.equal(dryPut.object.reportingController, 'example.com/controller');
      await core.create('default', coreEvent('e'));
      const dryUpdate = await core.update('default', 'e', (current) => ({ ...current!, count: 9 }), { dryRun: true });
      assert.equal(dryUpdate.object.apiVersion, 'v1');
      assert.equal(dryUpdate.object.count, 9);
      assert.equal((await events.get('default', 'e')).deprecatedCount, 2);
    });

    it('creates on PUT through events.k8s.io/v1, stored as core/v1', async () => {
      const { backing, events } = await setup(watchCache);
      const { object, created } = await events.update('default', 'put', () => newEvent('put'));
      assert.equal(created, true);
      assert.equal(object.apiVersion, 'events.k8s.io/v1');
      const raw = await backing.get('/registry/events/default/put');
      assert.equal((JSON.parse(Buffer.from(raw!.value).toString('utf8')) as { message: string }).message, 'synced the deployment');
    });
  });
}
