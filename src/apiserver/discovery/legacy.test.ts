import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { Scheme } from '../../api/scheme.js';
import { newAPIGroup, newAPIGroupList, newAPIResourceList, newAPIVersions } from './legacy.js';
import { storageVersionHash } from './storage-version-hash.js';

const scheme = newBuiltinScheme();
const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('GET /api', () => {
  it('is an APIVersions without apiVersion, listing v1 and the server address', () => {
    assert.equal(
      JSON.stringify(newAPIVersions('127.0.0.1:6443')),
      '{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]}',
    );
  });
});

describe('GET /apis and /apis/<group>', () => {
  it('lists the named groups in upstream priority order, with their preferred version', () => {
    const list = newAPIGroupList(scheme);
    assert.equal(list.kind, 'APIGroupList');
    assert.equal(list.apiVersion, 'v1');
    assert.deepEqual(
      list.groups.map((g) => g.name),
      ['apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'batch', 'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'scheduling.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io'],
    );
    assert.equal(
      JSON.stringify(list.groups[0]),
      '{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}',
    );
  });

  it('serves one group with kind and apiVersion, and nothing for unknown or core', () => {
    assert.equal(
      JSON.stringify(newAPIGroup(scheme, 'apps')),
      '{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}',
    );
    assert.equal(newAPIGroup(scheme, 'extensions'), undefined);
    assert.equal(newAPIGroup(scheme, ''), undefined);
  });

  it('prefers the GA version of a group with several', () => {
    const base = scheme.resource('apps', 'v1', 'deployments')!;
    const multi = new Scheme([{ ...base, version: 'v1beta1' }, base, { ...base, version: 'v2alpha1' }]);
    assert.deepEqual(
      newAPIGroup(multi, 'apps')!.versions.map((v) => v.version),
      ['v1', 'v1beta1', 'v2alpha1'],
    );
  });
});

describe('GET /api/v1', () => {
  const list = newAPIResourceList(scheme, { group: '', version: 'v1' })!;

  it('has no apiVersion and sorts resources and subresources by name', () => {
    assert.deepEqual(Object.keys(list), ['kind', 'groupVersion', 'resources']);
    assert.equal(list.groupVersion, 'v1');
    const names = list.resources.map((r) => r.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes('namespaces/finalize'));
  });

  it('describes pods and their subresources as upstream does', () => {
    const pods = list.resources.filter((r) => r.name === 'pods' || r.name.startsWith('pods/'));
    assert.equal(
      JSON.stringify(pods),
      JSON.stringify([
        { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ALL, shortNames: ['po'], categories: ['all'], storageVersionHash: 'xPOwRZ+Yhw8=' },
        { name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] },
        { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
        { name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
        { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
        { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
        { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
        { name: 'pods/portforward', singularName: '', namespaced: true, kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
        { name: 'pods/proxy', singularName: '', namespaced: true, kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
        { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      ]),
    );
  });

  it('gives virtual resources no storage version hash, and cluster-scoped ones namespaced false', () => {
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    assert.equal(JSON.stringify(byName.get('bindings')), '{"name":"bindings","singularName":"binding","namespaced":true,"kind":"Binding","verbs":["create"]}');
    assert.equal(
      JSON.stringify(byName.get('componentstatuses')),
      '{"name":"componentstatuses","singularName":"componentstatus","namespaced":false,"kind":"ComponentStatus","verbs":["get","list"],"shortNames":["cs"]}',
    );
    assert.equal(
      JSON.stringify(byName.get('namespaces')),
      '{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],"storageVersionHash":"Q3oi5N2YM8M="}',
    );
    assert.equal(byName.get('configmaps')?.storageVersionHash, 'qFsyl6wFWjQ=');
    assert.equal(byName.get('events')?.storageVersionHash, 'r2yiGXH7wu8=');
  });
});

describe('GET /apis/apps/v1', () => {
  it('carries apiVersion and lists deployments/scale as autoscaling/v1 Scale', () => {
    const list = newAPIResourceList(scheme, { group: 'apps', version: 'v1' })!;
    assert.deepEqual(Object.keys(list), ['kind', 'apiVersion', 'groupVersion', 'resources']);
    const deployments = list.resources.filter((r) => r.name.startsWith('deployments'));
    assert.equal(
      JSON.stringify(deployments),
      '[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"],"storageVersionHash":"8aSe+NMegvE="},' +
        '{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},' +
        '{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]}]',
    );
    assert.deepEqual(
      list.resources.map((r) => r.name),
      ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status'],
    );
  });

  it('is undefined for a group-version not served', () => {
    assert.equal(newAPIResourceList(scheme, { group: 'apps', version: 'v1beta1' }), undefined);
  });
});

describe('storageVersionHash', () => {
  it('matches upstream values', () => {
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
    assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
    assert.equal(storageVersionHash('apps', 'v1', 'StatefulSet'), 'H+vl74LkKdo=');
  });
});
