import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespacedDeletableResources } from './discovery.js';

describe('namespace controller discovery', () => {
  it('empties every namespaced deletable resource, Events included', () => {
    const names = namespacedDeletableResources().map((r) => `${r.group}/${r.resource}`);
    assert.ok(names.includes('/pods'));
    assert.ok(names.includes('apps/replicasets'));
    assert.ok(names.includes('/events'));
    assert.ok(!names.includes('/namespaces'));
    assert.ok(!names.includes('/nodes'));
    assert.ok(!names.includes('/bindings'));
  });
});
