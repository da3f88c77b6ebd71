import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, invalid } from './field-errors.js';

describe('FieldPath', () => {
  it('joins fields with dots, indexes and keys in brackets', () => {
    const spec = FieldPath.root('spec');
    assert.equal(String(spec.child('containers').index(0).child('image')), 'spec.containers[0].image');
    assert.equal(String(spec.child('strategy', 'rollingUpdate', 'maxSurge')), 'spec.strategy.rollingUpdate.maxSurge');
    assert.equal(String(FieldPath.root('metadata').child('labels').key('app')), 'metadata.labels[app]');
    assert.equal(`${spec.child('volumes').index(2)}`, 'spec.volumes[2]');
  });
  it('an empty root adds no dot before its first field, nor does an empty step', () => {
    const root = FieldPath.root('');
    assert.equal(String(root), '');
    assert.equal(String(root.child('spec')), 'spec');
    assert.equal(String(root.index(1)), '[1]');
    assert.equal(String(root.child('', 'x')), '.x');
    assert.equal(String(root.child('').child('x')), 'x');
  });
  it('a path read twice, or after its children, reads the same; errors carry its text', () => {
    const containers = FieldPath.root('spec').child('containers');
    const image = containers.index(0).child('image');
    assert.equal(String(image), 'spec.containers[0].image');
    assert.equal(String(containers), 'spec.containers');
    assert.equal(String(image), 'spec.containers[0].image');
    assert.deepEqual(invalid(image, 'x', 'bad'), { type: 'FieldValueInvalid', field: 'spec.containers[0].image', value: 'x', detail: 'bad' });
  });
});
