import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PatchSchema } from '../../machinery/strategic-merge-patch/patch-meta.js';
import { builtInStrategicMergeMetadata } from './strategic-merge-meta.js';

const metadata = builtInStrategicMergeMetadata();

function deployment(): PatchSchema {
  const schema = metadata.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.ok(schema !== undefined);
  return schema;
}

const podSpecOf = (root: PatchSchema): PatchSchema => root.lookupObjectField('spec').schema.lookupObjectField('template').schema.lookupObjectField('spec').schema;

describe('strategic merge metadata from the OpenAPI data', () => {
  it('finds merge keys and strategies through $ref and allOf', () => {
    const podSpec = podSpecOf(deployment());
    const containers = podSpec.lookupListField('containers');
    assert.deepEqual(containers.meta, { strategies: ['merge'], mergeKey: 'name' });
    assert.equal(containers.schema.name, 'struct');
    assert.deepEqual(containers.schema.lookupListField('env').meta, { strategies: ['merge'], mergeKey: 'name' });
    assert.deepEqual(containers.schema.lookupListField('ports').meta, { strategies: ['merge'], mergeKey: 'containerPort' });
    assert.deepEqual(containers.schema.lookupListField('args').meta, { strategies: [], mergeKey: '' });
    assert.deepEqual(podSpec.lookupListField('volumes').meta, { strategies: ['merge', 'retainKeys'], mergeKey: 'name' });
    assert.deepEqual(deployment().lookupObjectField('spec').schema.lookupObjectField('strategy').meta, { strategies: ['retainKeys'], mergeKey: '' });
    assert.deepEqual(deployment().lookupObjectField('metadata').schema.lookupListField('finalizers').meta, { strategies: ['merge'], mergeKey: '' });
  });
  it('finds a field ignoring case when no field has the exact name, as Go does', () => {
    assert.deepEqual(podSpecOf(deployment()).lookupListField('Containers').meta.mergeKey, 'name');
  });
  it('words lookup errors after the Go types', () => {
    const root = deployment();
    assert.throws(() => podSpecOf(root).lookupObjectField('foo'), { message: 'unable to find api field in struct PodSpec for the json field "foo"' });
    assert.throws(() => root.lookupObjectField('metadata').schema.lookupObjectField('labels').schema.lookupObjectField('x'), {
      message: 'merging an object in json but data type is not struct, instead is: map',
    });
    assert.throws(() => root.lookupObjectField('spec').schema.lookupListField('replicas'), { message: 'expected slice or array type, but got: struct' });
  });
  it('serves every built-in kind and no other', () => {
    for (const [group, version, kind] of [
      ['', 'v1', 'Pod'],
      ['', 'v1', 'Service'],
      ['', 'v1', 'ConfigMap'],
      ['apps', 'v1', 'ReplicaSet'],
      ['autoscaling', 'v1', 'Scale'],
      ['batch', 'v1', 'Job'],
    ] as const) {
      assert.ok(metadata.forKind({ group, version, kind }) !== undefined, `${kind}`);
    }
    assert.equal(metadata.forKind({ group: 'example.com', version: 'v1', kind: 'Widget' }), undefined);
  });
});
