import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { builtinResource } from '../../client/rest/resources.js';
import { ensureJoinRbac, joinRbacObjects } from './join-rbac.js';

const CRB = builtinResource('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings');

describe('the RBAC of joining nodes', () => {
  it("creates kubeadm's objects under k8ts: names", async () => {
    const client = newFakeClient();
    await ensureJoinRbac(client);
    const bindings = (await client.resource(CRB).list()).items.map((b) => [b.metadata.name, (b['roleRef'] as { name: string }).name, (b['subjects'] as { name: string }[])[0]!.name]);
    assert.deepEqual(bindings.sort(), [
      ['k8ts:kubelet-bootstrap', 'system:node-bootstrapper', 'system:bootstrappers:k8ts:default-node-token'],
      ['k8ts:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:bootstrappers:k8ts:default-node-token'],
      ['k8ts:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'],
      ['k8ts:node-proxier', 'k8ts:node-proxier', 'system:nodes'],
    ]);
    const proxier = await client.resource(builtinResource('rbac.authorization.k8s.io', 'v1', 'clusterroles')).get('k8ts:node-proxier');
    const rules = proxier['rules'] as { resources: string[]; verbs: string[] }[];
    assert.ok(!rules.some((r) => r.resources.includes('nodes')), 'nodes read only their own Node (the Node authorizer), not every Node');
    assert.ok(rules.some((r) => r.resources.includes('endpointslices') && r.verbs.includes('watch')));
    const role = await client.resource(builtinResource('rbac.authorization.k8s.io', 'v1', 'roles')).get('k8ts:bootstrap-signer-clusterinfo', { namespace: 'kube-public' });
    assert.deepEqual(role['rules'], [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }]);
  });

  it('writes nothing when all is in place, and puts back what was changed', async () => {
    const client = newFakeClient();
    await ensureJoinRbac(client);
    client.clearActions();
    await ensureJoinRbac(client);
    assert.deepEqual(client.actionsOf('update'), []);
    assert.equal(client.actionsOf('create').filter((a) => a.error === undefined).length, 0);
    const bindings = client.resource(CRB);
    const proxier = await bindings.get('k8ts:node-proxier');
    await bindings.update({ ...proxier, subjects: [] });
    const bootstrap = await bindings.get('k8ts:kubelet-bootstrap');
    await bindings.delete('k8ts:kubelet-bootstrap');
    await bindings.create({ ...bootstrap, metadata: { name: 'k8ts:kubelet-bootstrap' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } });
    await ensureJoinRbac(client);
    const wanted = new Map(joinRbacObjects().map((o) => [o.object.metadata.name, o.object]));
    for (const name of ['k8ts:node-proxier', 'k8ts:kubelet-bootstrap']) {
      const got = await bindings.get(name);
      assert.deepEqual([got['roleRef'], got['subjects']], [wanted.get(name)!['roleRef'], wanted.get(name)!['subjects']]);
    }
  });
});

describe('ensureObject on a ConfigMap', () => {
  it("keeps keys it does not own (cluster-info's signatures) and changes only its own", async () => {
    const { CONFIG_MAPS } = await import('../../client/rest/resources.js');
    const { ensureObject } = await import('./join-rbac.js');
    const client = newFakeClient();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: 'a' } };
    await ensureObject(client, CONFIG_MAPS, cm);
    const stored = await client.resource(CONFIG_MAPS).get('cluster-info', { namespace: 'kube-public' });
    await client.resource(CONFIG_MAPS).update({ ...stored, data: { kubeconfig: 'a', 'jws-kubeconfig-abcdef': 'sig' } });
    client.clearActions();
    await ensureObject(client, CONFIG_MAPS, cm);
    assert.deepEqual(client.actionsOf('update'), []);
    await ensureObject(client, CONFIG_MAPS, { ...cm, data: { kubeconfig: 'b' } });
    assert.deepEqual((await client.resource(CONFIG_MAPS).get('cluster-info', { namespace: 'kube-public' }))['data'], { kubeconfig: 'b', 'jws-kubeconfig-abcdef': 'sig' });
  });
});
