import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestInfo } from './request-info.js';

const info = (method: string, url: string) => {
  const u = new URL(url, 'https://x');
  return parseRequestInfo(method, u.pathname, u.searchParams);
};

describe('parseRequestInfo', () => {
  it('reads namespaced resources, names and subresources', () => {
    const i = info('PUT', '/api/v1/namespaces/default/pods/web/status');
    assert.deepEqual(
      [i.isResourceRequest, i.verb, i.apiGroup, i.apiVersion, i.namespace, i.resource, i.name, i.subresource],
      [true, 'update', '', 'v1', 'default', 'pods', 'web', 'status'],
    );
  });

  it('skips empty segments: doubled, leading and trailing slashes', () => {
    const i = parseRequestInfo('GET', '//api//v1/namespaces//default/pods/web/', new URLSearchParams());
    assert.deepEqual([i.isResourceRequest, i.verb, i.apiVersion, i.namespace, i.resource, i.name, i.parts], [true, 'get', 'v1', 'default', 'pods', 'web', ['pods', 'web']]);
    assert.equal(parseRequestInfo('GET', '', new URLSearchParams()).isResourceRequest, false);
    assert.equal(parseRequestInfo('GET', '/', new URLSearchParams()).isResourceRequest, false);
    assert.deepEqual(parseRequestInfo('GET', 'api/v1/pods', new URLSearchParams()).parts, ['pods']);
  });

  it('percent-decodes path segments, as Go reads URL.Path', () => {
    const i = info('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Anode');
    assert.equal(i.name, 'system:node');
    assert.equal(info('GET', '/api/v1/namespaces/default/configmaps/a%ZZ').name, 'a%ZZ', 'a malformed escape stays as it is');
  });

  it('tells list from watch from get', () => {
    assert.equal(info('GET', '/apis/apps/v1/deployments').verb, 'list');
    assert.equal(info('GET', '/apis/apps/v1/deployments?watch=true').verb, 'watch');
    assert.equal(info('GET', '/apis/apps/v1/deployments?watch=1').verb, 'watch');
    // Python's client sends watch=True; upstream reads any value but 0 and false as true.
    assert.equal(info('GET', '/apis/apps/v1/deployments?watch=True').verb, 'watch');
    assert.equal(info('GET', '/apis/apps/v1/deployments?watch=FALSE').verb, 'list');
    assert.equal(info('GET', '/apis/apps/v1/deployments?watch=0').verb, 'list');
    assert.equal(info('GET', '/apis/apps/v1/namespaces/x/deployments/web').verb, 'get');
    assert.equal(info('GET', '/api/v1/watch/namespaces/x/pods').verb, 'watch');
    assert.equal(info('GET', '/api/v1/watch/namespaces/x/pods').resource, 'pods');
  });

  it('maps methods to verbs', () => {
    assert.equal(info('POST', '/api/v1/namespaces/x/pods').verb, 'create');
    assert.equal(info('PATCH', '/api/v1/namespaces/x/pods/a').verb, 'patch');
    assert.equal(info('DELETE', '/api/v1/namespaces/x/pods/a').verb, 'delete');
    assert.equal(info('DELETE', '/api/v1/namespaces/x/pods').verb, 'deletecollection');
  });

  it('treats a namespace itself and its status/finalize as the namespaces resource', () => {
    const ns = info('GET', '/api/v1/namespaces/kube-system');
    assert.deepEqual([ns.resource, ns.name, ns.namespace], ['namespaces', 'kube-system', 'kube-system']);
    const fin = info('PUT', '/api/v1/namespaces/gone/finalize');
    assert.deepEqual([fin.resource, fin.name, fin.subresource], ['namespaces', 'gone', 'finalize']);
    const all = info('GET', '/api/v1/namespaces');
    assert.deepEqual([all.resource, all.name, all.namespace, all.verb], ['namespaces', '', '', 'list']);
  });

  it('marks other paths as non-resource requests', () => {
    for (const path of ['/healthz', '/version', '/openapi/v3', '/apis', '/api']) {
      assert.equal(info('GET', path).isResourceRequest, false, path);
    }
    assert.equal(info('GET', '/apis/apps/v1').isResourceRequest, false);
    assert.equal(info('GET', '/apis/apps/v1').apiGroup, 'apps');
  });

  it('takes the name a list or watch requires with fieldSelector=metadata.name, as upstream (for resourceNames)', () => {
    const list = info('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dc1');
    assert.deepEqual([list.verb, list.name, list.nameFromFieldSelector], ['list', 'c1', true]);
    const watch = info('GET', '/api/v1/configmaps?watch=true&fieldSelector=metadata.namespace%3Dx,metadata.name%3D%3Dc1');
    assert.deepEqual([watch.verb, watch.name, watch.nameFromFieldSelector], ['watch', 'c1', true]);
    for (const url of [
      '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name!%3Dc1',
      '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Da%2Fb',
      '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name',
      '/api/v1/namespaces/default/configmaps/c2?fieldSelector=metadata.name%3Dc1',
    ]) {
      const i = info('GET', url);
      assert.equal(i.nameFromFieldSelector, undefined, url);
    }
    assert.equal(info('GET', '/api/v1/namespaces/default/configmaps/c2?fieldSelector=metadata.name%3Dc1').name, 'c2');
  });
});

