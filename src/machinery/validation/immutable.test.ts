import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
import { semanticDeepEqual, validateImmutableField } from './immutable.js';

describe('semanticDeepEqual', () => {
  it('treats absent, null and empty collections alike', () => {
    assert.equal(semanticDeepEqual(undefined, []), true);
    assert.equal(semanticDeepEqual(null, {}), true);
    assert.equal(semanticDeepEqual({ a: [] }, {}), false);
    assert.equal(semanticDeepEqual({ a: [], b: undefined }, { a: null }), true);
    assert.equal(semanticDeepEqual(undefined, ''), false);
    assert.equal(semanticDeepEqual(0, null), false);
  });
  it('compares deeply, ignoring key order', () => {
    assert.equal(semanticDeepEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
    assert.equal(semanticDeepEqual([1, 2], [2, 1]), false);
    assert.equal(semanticDeepEqual({ a: 1 }, { a: 1, b: 2 }), false);
  });
});

describe('validateImmutableField', () => {
  it('says the field is immutable', () => {
    const path = FieldPath.root('spec').child('clusterIP');
    assert.deepEqual(validateImmutableField('10.0.0.1', '10.0.0.1', path), []);
    assert.deepEqual(validateImmutableField('10.0.0.2', '10.0.0.1', path).map(formatFieldError), [
      'spec.clusterIP: Invalid value: "10.0.0.2": field is immutable',
    ]);
  });
});
