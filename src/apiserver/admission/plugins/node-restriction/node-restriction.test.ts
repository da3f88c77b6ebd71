import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { registryLookup } from '../../../endpoints/installer.js';
import { builtinDefinitions } from '../../../registry/builtin.js';
import { ObjectStorage } from '../../../registry/generic/object-storage.js';
import { Registry } from '../../../registry/registry.js';
import { attributesFor, type TestAttributesOptions } from '../testing/attributes.js';
import { NAME, newNodeRestriction } from './node-restriction.js';

const NODE_A = { name: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };

function podObject(name: string, nodeName: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...meta }, spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...extra } } as KubeObject;
}

describe('NodeRestriction', () => {
  let plugin: ReturnType<typeof newNodeRestriction>;
  let nodeUid = '';
  let webUid = '';

  before(async () => {
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
    await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const node = await registry.store('', 'v1', 'nodes').create(undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a' } } as KubeObject);
    nodeUid = node.metadata.uid ?? '';
    webUid = (await registry.store('', 'v1', 'pods').create('default', podObject('web', 'a'))).metadata.uid ?? '';
    await registry.store('', 'v1', 'pods').create('default', podObject('db', 'b'));
    plugin = newNodeRestriction({ stores: registryLookup(registry), signal: new AbortController().signal });
  });

  const as = (o: Omit<TestAttributesOptions, 'user'>, user = NODE_A) => attributesFor({ ...o, user });
  const refused = async (o: Omit<TestAttributesOptions, 'user'>, message: string, user = NODE_A) =>
    assert.rejects(
      async () => plugin.validate(as(o, user)),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.message, message);
        assert.equal(e.code, 403);
        return true;
      },
    );
  const admitted = async (o: Omit<TestAttributesOptions, 'user'>, user = NODE_A) => plugin.validate(as(o, user));

  const mirror = (extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) =>
    podObject('static-a', 'a', extra, {
      annotations: { 'kubernetes.io/config.mirror': 'hash' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'a', uid: nodeUid, controller: true }],
      ...meta,
    });
  const createPod = (object: KubeObject) => ({ operation: 'CREATE' as const, resource: 'pods', kind: 'Pod', object });

  it('is named as upstream, handles create, update and delete, and leaves other users alone', async () => {
    assert.equal(NAME, 'NodeRestriction');
    assert.deepEqual(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((op) => plugin.handles(op as 'CREATE')), [true, true, true, false]);
    await admitted({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object: podObject('x', 'b') }, { name: 'alice', groups: [] });
    // Another user's request is answered at once, without a promise; a node's goes through the checks.
    assert.equal(plugin.validate(as({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object: podObject('x', 'b') }, { name: 'alice', groups: [] })), undefined);
    await refused({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object: podObject('x', 'b') }, 'pods "x" is forbidden: could not determine node from user "system:node:"', { name: 'system:node:', groups: ['system:nodes'] });
  });

  it('lets a node create only mirror pods bound to and owned by itself, naming no other object', async () => {
    await admitted(createPod(mirror()));
    const ownedBy = (owner: Record<string, unknown>[]) => mirror({}, { ownerReferences: owner });
    const nodeOwner = { apiVersion: 'v1', kind: 'Node', name: 'a', uid: nodeUid, controller: true };
    await refused(createPod(podObject('p', 'a')), 'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods');
    await refused(createPod(mirror({ nodeName: 'b' })), 'pods "static-a" is forbidden: node "a" can only create pods with spec.nodeName set to itself');
    await refused(createPod(ownedBy([nodeOwner, nodeOwner])), 'pods "static-a" is forbidden: node "a" can only create pods with a single owner reference set to itself');
    await refused(createPod(ownedBy([])), 'pods "static-a" is forbidden: node "a" can only create pods with an owner reference set to itself');
    await refused(createPod(ownedBy([{ ...nodeOwner, name: 'b' }])), 'pods "static-a" is forbidden: node "a" can only create pods with an owner reference set to itself');
    await refused(createPod(ownedBy([{ ...nodeOwner, controller: false }])), 'pods "static-a" is forbidden: node "a" can only create pods with a controller owner reference set to itself');
    await refused(createPod(ownedBy([{ ...nodeOwner, blockOwnerDeletion: true }])), 'pods "static-a" is forbidden: node "a" must not set blockOwnerDeletion on an owner reference');
    await refused(createPod(ownedBy([{ ...nodeOwner, uid: 'wrong' }])), `pods "static-a" is forbidden: node a UID mismatch: expected wrong got ${nodeUid}`);
    await refused(createPod(mirror({ serviceAccountName: 'sa' })), 'pods "static-a" is forbidden: node "a" can not create pods that reference a service account');
    await refused(createPod(mirror({ volumes: [{ name: 'v', secret: { secretName: 's' } }] })), 'pods "static-a" is forbidden: node "a" can not create pods that reference secrets');
    await refused(createPod(mirror({ volumes: [{ name: 'v', configMap: { name: 'c' } }] })), 'pods "static-a" is forbidden: node "a" can not create pods that reference configmaps');
    await refused(createPod(mirror({ volumes: [{ name: 'v', projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'p' } }] } }] })), 'pods "static-a" is forbidden: node "a" can not create pods that reference clustertrustbundles');
    await refused(createPod(mirror({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] })), 'pods "static-a" is forbidden: node "a" can not create pods that reference persistentvolumeclaims');
  });

  it('refuses a mirror pod when its node does not exist (NotFound)', async () => {
    const user = { name: 'system:node:ghost', groups: ['system:nodes'] };
    const pod = podObject('static-ghost', 'ghost', {}, { annotations: { 'kubernetes.io/config.mirror': 'h' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'ghost', uid: 'u', controller: true }] });
    await assert.rejects(async () => plugin.validate(as(createPod(pod), user)), (e: unknown) => e instanceof StatusError && e.code === 404);
  });

  it('lets a node delete only pods bound to itself, and not update pods', async () => {
    await admitted({ operation: 'DELETE', resource: 'pods', kind: 'Pod', name: 'web', oldObject: podObject('web', 'a') });
    await refused({ operation: 'DELETE', resource: 'pods', kind: 'Pod', name: 'db', oldObject: podObject('db', 'b') }, 'pods "db" is forbidden: node "a" can only delete pods with spec.nodeName set to itself');
    await assert.rejects(async () => plugin.validate(as({ operation: 'DELETE', resource: 'pods', kind: 'Pod', name: 'gone' })), (e: unknown) => e instanceof StatusError && e.code === 404);
    await refused({ operation: 'UPDATE', resource: 'pods', kind: 'Pod', object: podObject('web', 'a'), oldObject: podObject('web', 'a') }, 'pods "web" is forbidden: unexpected operation "UPDATE", node "a" can only create and delete mirror pods');
  });

  it('lets a node update the status of its own pods, without touching labels or resource claims', async () => {
    const status = (old: KubeObject, next: KubeObject) => ({ operation: 'UPDATE' as const, resource: 'pods', kind: 'Pod', subresource: 'status', object: next, oldObject: old });
    await admitted(status(podObject('web', 'a'), podObject('web', 'a')));
    await refused(status(podObject('db', 'b'), podObject('db', 'b')), 'pods "db" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself');
    await refused(status(podObject('web', 'a'), podObject('web', 'a', {}, { labels: { x: 'y' } })), 'pods "web" is forbidden: node "a" cannot update labels through pod status');
    const withClaims = { ...podObject('web', 'a'), status: { resourceClaimStatuses: [{ name: 'c', resourceClaimName: 'web-c' }] } } as KubeObject;
    await refused(status(podObject('web', 'a'), withClaims), 'pods "web" is forbidden: node "a" cannot update resource claim statues');
    await refused({ operation: 'DELETE', resource: 'pods', kind: 'Pod', subresource: 'status', name: 'web' }, 'pods "web" is forbidden: unexpected operation "DELETE"');
    await refused({ operation: 'UPDATE', resource: 'pods', kind: 'Pod', subresource: 'binding', name: 'web' }, 'pods "web" is forbidden: unexpected pod subresource "binding", only \'status\' and \'eviction\' are allowed');
  });

  it('lets a node evict only pods bound to itself', async () => {
    const eviction = (name: string, podName = name) => ({ operation: 'CREATE' as const, resource: 'pods', kind: 'Eviction', subresource: 'eviction', name: podName, object: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } } as KubeObject });
    await admitted(eviction('web'));
    await admitted(eviction('web', ''));
    await refused(eviction('db'), 'pods "db" is forbidden: node a can only evict pods with spec.nodeName set to itself');
    await refused(eviction('', ''), 'pods "Unknown" is forbidden: could not determine pod from request data');
    await refused({ operation: 'DELETE', resource: 'pods', kind: 'Eviction', subresource: 'eviction', name: 'web' }, 'pods "web" is forbidden: unexpected operation DELETE');
  });

  it('lets a node create and update only its own Node, never its taints, config source or restricted labels', async () => {
    const node = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec }) as KubeObject;
    const nodes = { resource: 'nodes', kind: 'Node', namespace: '' };
    await admitted({ ...nodes, operation: 'CREATE', object: node('a', { 'kubernetes.io/hostname': 'a', 'node.kubernetes.io/exclude-from-external-load-balancers': 'true', 'example.com/team': 'x' }) });
    await refused({ ...nodes, operation: 'CREATE', object: node('b') }, 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    await refused({ ...nodes, operation: 'UPDATE', name: 'b', object: node('b'), oldObject: node('b') }, 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    await refused({ ...nodes, operation: 'DELETE', name: 'b' }, 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    await refused(
      { ...nodes, operation: 'CREATE', object: node('a', { 'node-restriction.kubernetes.io/secure': 'true', 'node-role.kubernetes.io/master': '', 'topology.kubernetes.io/zone': 'z' }) },
      'nodes "a" is forbidden: node "a" is not allowed to set the following labels: node-restriction.kubernetes.io/secure, node-role.kubernetes.io/master',
    );
    await refused({ ...nodes, operation: 'CREATE', object: node('a', {}, { configSource: { configMap: { name: 'c' } } }) }, 'nodes "a" is forbidden: node "a" is not allowed to create pods with a non-nil configSource');
    const update = (old: KubeObject, next: KubeObject) => ({ ...nodes, operation: 'UPDATE' as const, name: 'a', object: next, oldObject: old });
    await admitted(update(node('a', { 'kubernetes.io/os': 'linux' }), node('a', { 'kubernetes.io/os': 'linux', 'kubelet.kubernetes.io/x': 'y', team: 'z' })));
    // No taints and an empty list are the same.
    await admitted(update(node('a', {}, { taints: [] }), node('a', {}, {})));
    await refused(update(node('a'), node('a', { 'node-restriction.kubernetes.io/secure': 'true' })), 'nodes "a" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/secure');
    await refused(update(node('a', { 'node-role.kubernetes.io/worker': '' }), node('a')), 'nodes "a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker');
    await refused(update(node('a', {}, { taints: [{ key: 'k', effect: 'NoSchedule' }] }), node('a')), 'nodes "a" is forbidden: node "a" is not allowed to modify taints');
    await refused(update(node('a'), node('a', {}, { configSource: { configMap: { name: 'c' } } })), 'nodes "a" is forbidden: node "a" is not allowed to update configSource to a new non-nil configSource');
  });

  it('lets a node use only its own lease in kube-node-lease, and its own CSINode', async () => {
    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name } }) as KubeObject;
    const leases = { resource: 'leases', group: 'coordination.k8s.io', kind: 'Lease', namespace: 'kube-node-lease' };
    await admitted({ ...leases, operation: 'CREATE', object: lease('a') });
    await admitted({ ...leases, operation: 'UPDATE', name: 'a', object: lease('a'), oldObject: lease('a') });
    await refused({ ...leases, operation: 'CREATE', object: lease('b') }, 'leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node');
    await refused({ ...leases, operation: 'DELETE', name: 'b' }, 'leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node');
    await refused({ ...leases, namespace: 'default', operation: 'CREATE', object: lease('a') }, 'leases.coordination.k8s.io "a" is forbidden: can only access leases in the "kube-node-lease" system namespace');
    const csinodes = { resource: 'csinodes', group: 'storage.k8s.io', kind: 'CSINode', namespace: '' };
    await admitted({ ...csinodes, operation: 'CREATE', object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'a' } } as KubeObject });
    await refused({ ...csinodes, operation: 'UPDATE', name: 'b' }, 'csinodes.storage.k8s.io "b" is forbidden: can only access CSINode with the same name as the requesting node');
  });

  it('lets a node request tokens only bound to its own pods', async () => {
    const token = (boundObjectRef?: Record<string, unknown>) => ({
      operation: 'CREATE' as const,
      resource: 'serviceaccounts',
      kind: 'TokenRequest',
      subresource: 'token',
      name: 'sa',
      object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'sa' }, spec: { audiences: [], ...(boundObjectRef !== undefined ? { boundObjectRef } : {}) } } as KubeObject,
    });
    await admitted(token({ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: webUid }));
    await refused(token(), 'serviceaccounts "sa" is forbidden: node requested token not bound to a pod');
    await refused(token({ apiVersion: 'v1', kind: 'Secret', name: 'web', uid: webUid }), 'serviceaccounts "sa" is forbidden: node requested token not bound to a pod');
    await refused(token({ apiVersion: 'v1', kind: 'Pod', name: 'web' }), 'serviceaccounts "sa" is forbidden: node requested token with a pod binding without a uid');
    await refused(token({ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'old' }), 'serviceaccounts "sa" is forbidden: the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated');
    const dbUid = 'x';
    await assert.rejects(async () => plugin.validate(as(token({ apiVersion: 'v1', kind: 'Pod', name: 'gone', uid: dbUid }))), (e: unknown) => e instanceof StatusError && e.code === 404);
    await admitted({ operation: 'UPDATE', resource: 'serviceaccounts', kind: 'ServiceAccount', name: 'sa' });
  });

  it('refuses a token bound to a pod on another node', async () => {
    const user = { name: 'system:node:b', groups: ['system:nodes'] };
    const object = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'sa' }, spec: { audiences: [], boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: webUid } } } as KubeObject;
    await refused({ operation: 'CREATE', resource: 'serviceaccounts', kind: 'TokenRequest', subresource: 'token', name: 'sa', object }, 'serviceaccounts "sa" is forbidden: node requested token bound to a pod scheduled on a different node', user);
  });

  it('lets a node change only the capacity and conditions of a PVC\'s status', async () => {
    const pvc = (status: Record<string, unknown>, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', resourceVersion: '1', labels }, status }) as KubeObject;
    const update = (old: KubeObject, next: KubeObject) => ({ operation: 'UPDATE' as const, resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', subresource: 'status', name: 'c', object: next, oldObject: old });
    await admitted(update(pvc({ phase: 'Bound' }), pvc({ phase: 'Bound', capacity: { storage: '1Gi' }, conditions: [{ type: 'Resizing', status: 'True' }] })));
    await assert.rejects(async () => plugin.validate(as(update(pvc({}), pvc({ phase: 'Lost' })))), (e: unknown) => e instanceof StatusError && e.message.startsWith('persistentvolumeclaims "c" is forbidden: node "a" is not allowed to update fields other than status.capacity and status.conditions: '));
    await refused({ operation: 'UPDATE', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', name: 'c' }, 'persistentvolumeclaims "c" is forbidden: may only update PVC status');
    await refused({ operation: 'DELETE', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', subresource: 'status', name: 'c' }, 'persistentvolumeclaims "c" is forbidden: unexpected operation "DELETE"');
  });
});
