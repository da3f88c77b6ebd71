import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryString, resourcePath } from './request-path.js';
import { CONFIG_MAPS, DEPLOYMENTS, NODES, PODS } from './resources.js';

describe('resourcePath', () => {
  it('builds core and group paths, namespaced or not, with names and subresources', () => {
    assert.equal(resourcePath(PODS), '/api/v1/pods');
    assert.equal(resourcePath(PODS, { namespace: 'default' }), '/api/v1/namespaces/default/pods');
    assert.equal(resourcePath(PODS, { namespace: 'default', name: 'web', subresource: 'binding' }), '/api/v1/namespaces/default/pods/web/binding');
    assert.equal(resourcePath(DEPLOYMENTS, { namespace: 'ns', name: 'd', subresource: 'scale' }), '/apis/apps/v1/namespaces/ns/deployments/d/scale');
    assert.equal(resourcePath(NODES, { namespace: 'ignored', name: 'n1' }), '/api/v1/nodes/n1');
    assert.equal(resourcePath(CONFIG_MAPS, { namespace: '', name: 'a' }), '/api/v1/configmaps/a');
  });
  it('escapes names', () => {
    assert.equal(resourcePath(NODES, { name: 'a/b c' }), '/api/v1/nodes/a%2Fb%20c');
  });
});

describe('queryString', () => {
  it('keeps defined, non-empty values in order and encodes them', () => {
    assert.equal(queryString({}), '');
    assert.equal(queryString({ a: undefined, b: '' }), '');
    assert.equal(queryString({ labelSelector: 'app=web,tier!=db', limit: 5, watch: true }), '?labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=5&watch=true');
  });
});
