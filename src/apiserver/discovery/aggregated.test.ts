import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { newAPIGroupDiscoveryList } from './aggregated.js';
import { newAPIGroupList, newAPIResourceList } from './legacy.js';

const scheme = newBuiltinScheme();
const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('aggregated discovery of /api', () => {
  for (const version of ['v2', 'v2beta1'] as const) {
    it(`is an APIGroupDiscoveryList ${version} with the core group alone, unnamed`, () => {
      const doc = newAPIGroupDiscoveryList(scheme, 'api', version);
      assert.deepEqual(Object.keys(doc), ['kind', 'apiVersion', 'metadata', 'items']);
      assert.equal(doc.kind, 'APIGroupDiscoveryList');
      assert.equal(doc.apiVersion, `apidiscovery.k8s.io/${version}`);
      assert.deepEqual(doc.metadata, {});
      assert.equal(doc.items.length, 1);
      assert.equal(JSON.stringify(doc.items[0]!.metadata), '{"creationTimestamp":null}');
      assert.deepEqual(doc.items[0]!.versions.map((v) => [v.version, v.freshness]), [['v1', 'Current']]);
    });
  }

  it('describes pods with their subresources, kinds of the same group-version left empty', () => {
    const v1 = newAPIGroupDiscoveryList(scheme, 'api', 'v2').items[0]!.versions[0]!;
    const pods = v1.resources!.find((r) => r.resource === 'pods');
    assert.equal(
      JSON.stringify(pods),
      JSON.stringify({
        resource: 'pods',
        responseKind: { group: '', version: '', kind: 'Pod' },
        scope: 'Namespaced',
        singularResource: 'pod',
        verbs: ALL,
        shortNames: ['po'],
        categories: ['all'],
        subresources: [
          { subresource: 'attach', responseKind: { group: '', version: '', kind: 'PodAttachOptions' }, verbs: ['create', 'get'] },
          { subresource: 'binding', responseKind: { group: '', version: '', kind: 'Binding' }, verbs: ['create'] },
          { subresource: 'ephemeralcontainers', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
          { subresource: 'eviction', responseKind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
          { subresource: 'exec', responseKind: { group: '', version: '', kind: 'PodExecOptions' }, verbs: ['create', 'get'] },
          { subresource: 'log', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get'] },
          { subresource: 'portforward', responseKind: { group: '', version: '', kind: 'PodPortForwardOptions' }, verbs: ['create', 'get'] },
          { subresource: 'proxy', responseKind: { group: '', version: '', kind: 'PodProxyOptions' }, verbs: ['create', 'delete', 'get', 'patch', 'update'] },
          { subresource: 'status', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
        ],
      }),
    );
    const ns = v1.resources!.find((r) => r.resource === 'namespaces')!;
    assert.equal(ns.scope, 'Cluster');
    assert.deepEqual(ns.subresources!.map((s) => s.subresource), ['finalize', 'status']);
    const cm = v1.resources!.find((r) => r.resource === 'configmaps')!;
    assert.equal('subresources' in cm, false);
    assert.equal('categories' in cm, false);
  });

  it('lists the same resources as the legacy /api/v1', () => {
    const legacy = newAPIResourceList(scheme, { group: '', version: 'v1' })!.resources.filter((r) => !r.name.includes('/'));
    const agg = newAPIGroupDiscoveryList(scheme, 'api', 'v2').items[0]!.versions[0]!.resources!;
    assert.deepEqual(agg.map((r) => r.resource), legacy.map((r) => r.name));
  });
});

describe('aggregated discovery of /apis', () => {
  it('lists the named groups in the order of the legacy /apis', () => {
    const doc = newAPIGroupDiscoveryList(scheme, 'apis', 'v2');
    assert.deepEqual(doc.items.map((g) => g.metadata.name), newAPIGroupList(scheme).groups.map((g) => g.name));
    assert.equal(JSON.stringify(doc.items[0]!.metadata), '{"name":"apps","creationTimestamp":null}');
  });

  it('gives deployments/scale the autoscaling/v1 Scale kind', () => {
    const apps = newAPIGroupDiscoveryList(scheme, 'apis', 'v2beta1').items.find((g) => g.metadata.name === 'apps')!;
    const deployments = apps.versions[0]!.resources!.find((r) => r.resource === 'deployments')!;
    assert.equal(
      JSON.stringify(deployments),
      '{"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment",' +
        '"verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"],' +
        '"subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},' +
        '{"subresource":"status","responseKind":{"group":"","version":"","kind":"Deployment"},"verbs":["get","patch","update"]}]}',
    );
  });

  it('differs between v2 and v2beta1 only in apiVersion', () => {
    const v2 = newAPIGroupDiscoveryList(scheme, 'apis', 'v2');
    const beta = newAPIGroupDiscoveryList(scheme, 'apis', 'v2beta1');
    assert.deepEqual({ ...beta, apiVersion: v2.apiVersion }, v2);
  });
});
