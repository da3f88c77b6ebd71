import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reviewAttributes, validateAccessReviewSpec } from './reviews.js';

const user = { name: 'alice', groups: [] };

describe('validateAccessReviewSpec', () => {
  it('needs exactly one of resourceAttributes and nonResourceAttributes', () => {
    assert.deepEqual(validateAccessReviewSpec({}, true).map((e) => [e.field, e.detail]), [['spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified']]);
    assert.deepEqual(validateAccessReviewSpec({ resourceAttributes: {}, nonResourceAttributes: {} }, true).map((e) => e.detail), ['cannot be specified in combination with resourceAttributes']);
  });
  it('needs a user or a group in a SubjectAccessReview, not in a self review', () => {
    assert.deepEqual(validateAccessReviewSpec({ resourceAttributes: {} }, false).map((e) => [e.field, e.detail]), [['spec.user', 'at least one of user or group must be specified']]);
    assert.deepEqual(validateAccessReviewSpec({ resourceAttributes: {} }, true), []);
    assert.deepEqual(validateAccessReviewSpec({ resourceAttributes: {}, groups: ['g'] }, false), []);
  });
});

describe('reviewAttributes', () => {
  it('reads resource attributes, any version when none is given', () => {
    assert.deepEqual(reviewAttributes(user, { resourceAttributes: { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'ns', name: 'web' } }), {
      user, verb: 'create', isResourceRequest: true, path: '', namespace: 'ns', apiGroup: '', apiVersion: '*', resource: 'pods', subresource: 'eviction', name: 'web',
    });
  });
  it('reads non-resource attributes', () => {
    const a = reviewAttributes(user, { nonResourceAttributes: { verb: 'get', path: '/healthz' } });
    assert.equal(a.isResourceRequest, false);
    assert.equal(a.path, '/healthz');
    assert.equal(a.verb, 'get');
  });
});
