import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyApiPath, verbOfAction } from './api-path.js';

describe('classifyApiPath', () => {
  it('names the root and group documents', () => {
    assert.deepEqual(classifyApiPath('/api/'), { document: 'api' });
    assert.deepEqual(classifyApiPath('/apis/'), { document: 'apis' });
    assert.deepEqual(classifyApiPath('/version/'), { document: 'version' });
    assert.deepEqual(classifyApiPath('/apis/apps/'), { document: 'apis/apps', group: 'apps' });
    assert.deepEqual(classifyApiPath('/api/v1/'), { document: 'api/v1', group: '', version: 'v1' });
    assert.deepEqual(classifyApiPath('/apis/apps/v1/'), { document: 'apis/apps/v1', group: 'apps', version: 'v1' });
  });

  it('finds the resource and subresource of namespaced, cluster, list-all and watch paths', () => {
    const pod = { document: 'api/v1', group: '', version: 'v1', resource: 'pods' };
    assert.deepEqual(classifyApiPath('/api/v1/namespaces/{namespace}/pods'), pod);
    assert.deepEqual(classifyApiPath('/api/v1/namespaces/{namespace}/pods/{name}'), pod);
    assert.deepEqual(classifyApiPath('/api/v1/pods'), pod);
    assert.deepEqual(classifyApiPath('/api/v1/watch/namespaces/{namespace}/pods/{name}'), pod);
    assert.deepEqual(classifyApiPath('/api/v1/namespaces/{namespace}/pods/{name}/eviction'), { ...pod, subresource: 'eviction' });
    assert.deepEqual(classifyApiPath('/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}'), { ...pod, subresource: 'proxy' });
    const ns = { document: 'api/v1', group: '', version: 'v1', resource: 'namespaces' };
    assert.deepEqual(classifyApiPath('/api/v1/namespaces/{name}'), ns);
    assert.deepEqual(classifyApiPath('/api/v1/namespaces/{name}/finalize'), { ...ns, subresource: 'finalize' });
    assert.deepEqual(classifyApiPath('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'), {
      document: 'apis/apps/v1',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      subresource: 'scale',
    });
  });

  it('leaves paths outside the API alone', () => {
    assert.equal(classifyApiPath('/logs/'), undefined);
    assert.equal(classifyApiPath('/.well-known/openid-configuration/'), undefined);
    assert.equal(classifyApiPath('/openid/v1/jwks/'), undefined);
  });
});

describe('verbOfAction', () => {
  it('maps x-kubernetes-action to verbs', () => {
    assert.deepEqual(
      ['get', 'list', 'watch', 'watchlist', 'post', 'put', 'patch', 'delete', 'deletecollection', 'connect', undefined].map(verbOfAction),
      ['get', 'list', 'watch', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', undefined, undefined],
    );
  });
});
