import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PersistentVolume, Pod } from 'kubernetes-types/core/v1.js';
import { NodeGraph } from './graph.js';

function pod(name: string, nodeName: string | undefined, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}` }, spec: { containers: [{ name: 'c' }], ...(nodeName !== undefined ? { nodeName } : {}), ...spec } };
}

const everyReference: Partial<NonNullable<Pod['spec']>> = {
  serviceAccountName: 'sa',
  imagePullSecrets: [{ name: 'pull' }],
  initContainers: [{ name: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'init-env', key: 'k' } } }] }],
  containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'env-from' } }, { configMapRef: { name: 'cm-from' } }], env: [{ name: 'F', valueFrom: { configMapKeyRef: { name: 'cm-env', key: 'k' } } }] }],
  ephemeralContainers: [{ name: 'e', envFrom: [{ secretRef: { name: 'ephemeral' } }] }],
  volumes: [
    { name: 'v1', secret: { secretName: 'vol' } },
    { name: 'v2', configMap: { name: 'cm-vol' } },
    { name: 'v3', projected: { sources: [{ secret: { name: 'projected' } }, { configMap: { name: 'cm-projected' } }] } },
    { name: 'v4', persistentVolumeClaim: { claimName: 'claim' } },
    { name: 'v5', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    { name: 'v6', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi' } } },
  ],
};

describe('NodeGraph', () => {
  it('links every object a bound pod names to its node, and to no other node', () => {
    const g = new NodeGraph();
    g.setPod(pod('web', 'a', everyReference));
    g.setPod(pod('other', 'b'));
    for (const secret of ['pull', 'init-env', 'env-from', 'ephemeral', 'vol', 'projected', 'csi']) {
      assert.equal(g.hasPathFrom('a', 'secret', 'ns', secret).found, true, secret);
      assert.equal(g.hasPathFrom('b', 'secret', 'ns', secret).found, false, secret);
    }
    for (const cm of ['cm-from', 'cm-env', 'cm-vol', 'cm-projected']) assert.equal(g.hasPathFrom('a', 'configmap', 'ns', cm).found, true, cm);
    assert.equal(g.hasPathFrom('a', 'serviceaccount', 'ns', 'sa').found, true);
    assert.equal(g.hasPathFrom('a', 'pvc', 'ns', 'claim').found, true);
    assert.equal(g.hasPathFrom('a', 'pvc', 'ns', 'web-v5').found, true, 'the ephemeral volume\'s claim');
    assert.equal(g.hasPathFrom('a', 'pod', 'ns', 'web').found, true);
    assert.equal(g.hasPathFrom('a', 'secret', 'other-ns', 'vol').found, false, 'the same name in another namespace');
  });

  it('gives upstream\'s reasons for an unknown node, an unknown object and an unrelated one', () => {
    const g = new NodeGraph();
    assert.deepEqual(g.hasPathFrom('a', 'secret', 'ns', 's'), { found: false, error: "unknown node 'a' cannot get secret ns/s" });
    g.setPod(pod('web', 'a', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
    g.setPod(pod('db', 'b', { volumes: [{ name: 'v', secret: { secretName: 't' } }] }));
    assert.deepEqual(g.hasPathFrom('a', 'secret', 'ns', 'nope'), { found: false, error: "node 'a' cannot get unknown secret ns/nope" });
    assert.deepEqual(g.hasPathFrom('a', 'secret', 'ns', 't'), { found: false, error: "node 'a' cannot get secret ns/t, no relationship to this object was found in the node authorizer graph" });
  });

  it('forgets a deleted pod\'s relationships, and keeps those another pod still has', () => {
    const g = new NodeGraph();
    const uses = { volumes: [{ name: 'v', secret: { secretName: 's' } }] };
    g.setPod(pod('one', 'a', uses));
    g.setPod(pod('two', 'a', uses));
    g.deletePod('ns', 'one');
    assert.equal(g.hasPathFrom('a', 'secret', 'ns', 's').found, true);
    g.deletePod('ns', 'two');
    assert.equal(g.hasPathFrom('a', 'secret', 'ns', 's').found, false);
    assert.equal(g.size, 0, 'no vertex is left behind');
  });

  it('follows a pod that changes what it names or loses its node', () => {
    const g = new NodeGraph();
    g.setPod(pod('web', 'a', { volumes: [{ name: 'v', secret: { secretName: 'old' } }] }));
    g.setPod(pod('web', 'a', { volumes: [{ name: 'v', secret: { secretName: 'new' } }] }));
    assert.equal(g.hasPathFrom('a', 'secret', 'ns', 'old').found, false);
    assert.equal(g.hasPathFrom('a', 'secret', 'ns', 'new').found, true);
    g.setPod(pod('web', undefined, { volumes: [{ name: 'v', secret: { secretName: 'new' } }] }));
    assert.equal(g.size, 0);
  });

  it('reaches a bound PV and its secrets through the claim, and a volume attachment directly', () => {
    const g = new NodeGraph();
    g.setPod(pod('web', 'a', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'claim' } }] }));
    const pv: PersistentVolume = { metadata: { name: 'pv1' }, spec: { claimRef: { namespace: 'ns', name: 'claim' }, csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { name: 'stage', namespace: 'secrets' } } } };
    g.setPersistentVolume(pv);
    assert.equal(g.hasPathFrom('a', 'pv', '', 'pv1').found, true);
    assert.equal(g.hasPathFrom('a', 'secret', 'secrets', 'stage').found, true);
    g.setPersistentVolume({ metadata: { name: 'pv1' }, spec: {} });
    assert.equal(g.hasPathFrom('a', 'pv', '', 'pv1').found, false, 'an unbound PV leads nowhere');
    g.deletePersistentVolume('pv1');
    g.setVolumeAttachment('va1', 'a');
    assert.equal(g.hasPathFrom('a', 'volumeattachment', '', 'va1').found, true);
    g.deleteVolumeAttachment('va1');
    assert.equal(g.hasPathFrom('a', 'volumeattachment', '', 'va1').found, false);
  });
});
