import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
