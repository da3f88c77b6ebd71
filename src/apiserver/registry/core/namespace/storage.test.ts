import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { newBuiltinScheme } from '../../../../api/resources.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import { Registry } from '../../registry.js';

describe('namespace storage', () => {
  it('labels every namespace with kubernetes.io/metadata.name, on create and on update', async () => {
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
    const namespaces = registry.store('', 'v1', 'namespaces');
    const created = await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { a: 'b' } } });
    assert.deepEqual(created.metadata.labels, { a: 'b', 'kubernetes.io/metadata.name': 'team-a' });
    assert.deepEqual((created as { status?: unknown }).status, { phase: 'Active' });
    const { object } = await namespaces.update(undefined, 'team-a', (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { 'kubernetes.io/metadata.name': 'other' } } }));
    assert.deepEqual(object.metadata.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  });
});

describe('namespace deletion', () => {
  const setup = async () => {
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
    const entry = registry.lookup('', 'v1', 'namespaces')!;
    await entry.store.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    return { store: entry.store, finalize: entry.subresources.get('finalize')!.store, status: entry.subresources.get('status')!.store };
  };
  const spec = (o: KubeObject): { finalizers?: string[] } => (o['spec'] ?? {}) as { finalizers?: string[] };
  const phase = (o: KubeObject): string | undefined => (o['status'] as { phase?: string } | undefined)?.phase;

  it('marks the namespace Terminating on the first DELETE and keeps it while spec.finalizers hold it', async () => {
    const { store } = await setup();
    const first = await store.delete(undefined, 'doomed');
    assert.equal(first.deleted, false);
    assert.notEqual(first.object.metadata.deletionTimestamp, undefined);
    assert.equal(phase(first.object), 'Terminating');
    const again = await store.delete(undefined, 'doomed');
    assert.equal(again.deleted, false);
    assert.equal(again.object.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp);
    assert.deepEqual(spec(await store.get(undefined, 'doomed')).finalizers, ['kubernetes']);
  });

  it('a dry run marks nothing', async () => {
    const { store } = await setup();
    const dry = await store.delete(undefined, 'doomed', { dryRun: true });
    assert.equal(phase(dry.object), 'Terminating');
    assert.equal((await store.get(undefined, 'doomed')).metadata.deletionTimestamp, undefined);
  });

  it('a UID precondition that does not match fails with a Conflict', async () => {
    const { store } = await setup();
    await assert.rejects(store.delete(undefined, 'doomed', { preconditions: { uid: 'other' } }), (e: unknown) => (e as { code?: number }).code === 409);
  });

  it('the finalize subresource changes spec.finalizers only, and emptying them deletes a terminating namespace', async () => {
    const { store, finalize } = await setup();
    // Before deletion: finalize may change spec.finalizers, nothing else.
    const { object: changed } = await finalize.update(undefined, 'doomed', (current) => ({
      ...current!,
      metadata: { ...current!.metadata, labels: { sneaky: 'yes' } },
      spec: { finalizers: ['kubernetes', 'example.com/hold'] },
    }));
    assert.deepEqual(spec(changed).finalizers, ['kubernetes', 'example.com/hold']);
    assert.equal(changed.metadata.labels?.['sneaky'], undefined);
    await store.delete(undefined, 'doomed');
    const { object: held } = await finalize.update(undefined, 'doomed', (current) => ({ ...current!, spec: { finalizers: ['example.com/hold'] } }));
    assert.deepEqual(spec(held).finalizers, ['example.com/hold']);
    assert.equal(phase(await store.get(undefined, 'doomed')), 'Terminating');
    await finalize.update(undefined, 'doomed', (current) => ({ ...current!, spec: { finalizers: [] } }));
    await assert.rejects(store.get(undefined, 'doomed'), (e: unknown) => (e as { code?: number }).code === 404);
  });

  it('a status update keeps the namespace while spec.finalizers remain', async () => {
    const { store, status } = await setup();
    await store.delete(undefined, 'doomed');
    await status.update(undefined, 'doomed', (current) => ({ ...current!, status: { phase: 'Terminating', conditions: [] } }));
    assert.equal(phase(await store.get(undefined, 'doomed')), 'Terminating');
  });

  it('an orphan propagation policy adds the orphan finalizer while marking', async () => {
    const { store } = await setup();
    const { object } = await store.delete(undefined, 'doomed', { propagationPolicy: 'Orphan' });
    assert.deepEqual(object.metadata.finalizers, ['orphan']);
  });

  it('a namespace whose spec.finalizers are already empty goes on the next DELETE', async () => {
    const { store, finalize } = await setup();
    await finalize.update(undefined, 'doomed', (current) => ({ ...current!, spec: { finalizers: [] } }));
    assert.equal((await store.delete(undefined, 'doomed')).deleted, false);
    assert.equal((await store.delete(undefined, 'doomed')).deleted, true);
  });
});
