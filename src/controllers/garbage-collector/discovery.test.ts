import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiVersionOf, garbageCollectedResources, newResourceMapper } from './discovery.js';

describe('garbage collector discovery', () => {
  it('collects every resource that supports list, watch and delete, except Events', () => {
    const names = garbageCollectedResources().map((r) => `${r.group}/${r.resource}`);
    assert.ok(names.includes('/pods'));
    assert.ok(names.includes('apps/replicasets'));
    assert.ok(names.includes('/namespaces'));
    assert.ok(!names.includes('/bindings'));
    assert.ok(!names.includes('/events'));
    assert.ok(!names.includes('events.k8s.io/events'));
  });


  it('maps apiVersion and kind to the resource', () => {
    const mapper = newResourceMapper();
    assert.deepEqual(mapper('apps/v1', 'ReplicaSet'), { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true });
    assert.equal(mapper('v1', 'Node')?.namespaced, false);
    assert.equal(mapper('apps/v1beta1', 'ReplicaSet'), undefined);
    assert.equal(apiVersionOf({ group: '', version: 'v1' }), 'v1');
    assert.equal(apiVersionOf({ group: 'apps', version: 'v1' }), 'apps/v1');
  });
});
