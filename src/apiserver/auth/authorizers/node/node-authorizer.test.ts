import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { nodeRules } from '../../bootstrap-policy/cluster-roles.js';
import type { Attributes } from '../interface.js';
import { NodeGraph } from './graph.js';
import { newNodeAuthorizer } from './node-authorizer.js';

const NODE_A = { name: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };

function setup() {
  const graph = new NodeGraph();
  const web: Pod = {
    metadata: { name: 'web', namespace: 'ns', uid: 'u1' },
    spec: { nodeName: 'a', serviceAccountName: 'sa', containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cm' } }] }], volumes: [{ name: 'v', secret: { secretName: 'mine' } }, { name: 'p', persistentVolumeClaim: { claimName: 'claim' } }] },
  };
  graph.setPod(web);
  graph.setPod({ metadata: { name: 'db', namespace: 'ns', uid: 'u2' }, spec: { nodeName: 'b', containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'theirs' } }] } });
  graph.setPersistentVolume({ metadata: { name: 'pv1' }, spec: { claimRef: { namespace: 'ns', name: 'claim' } } });
  const authorizer = newNodeAuthorizer({ graph, rules: nodeRules() });
  const ask = (a: Partial<Attributes>) =>
    authorizer.authorize({ user: NODE_A, verb: 'get', isResourceRequest: true, path: '', namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'secrets', subresource: '', name: '', ...a });
  return { graph, authorizer, ask };
}

const allow = { decision: 'Allow', reason: '' };
const no = (reason: string) => ({ decision: 'NoOpinion', reason });
const NO_RELATIONSHIP = no("no relationship found between node 'a' and this object");

describe('Node authorizer', () => {
  it('has no opinion on users that are not nodes, and says so for a node without a name', async () => {
    const { ask } = setup();
    assert.deepEqual(await ask({ user: { name: 'alice', groups: ['system:authenticated'] }, name: 'mine' }), no(''));
    assert.deepEqual(await ask({ user: { name: 'system:node:a', groups: ['system:authenticated'] }, name: 'mine' }), no(''), 'the group is required');
    assert.deepEqual(await ask({ user: { name: 'system:node:', groups: ['system:nodes'] }, name: 'mine' }), no('unknown node for user "system:node:"'));
  });

  it('lets a node read the secrets and configmaps of its pods, and nothing else, with upstream\'s reasons', async () => {
    const { ask } = setup();
    assert.deepEqual(await ask({ name: 'mine' }), allow);
    assert.deepEqual(await ask({ verb: 'watch', fieldSelector: 'metadata.name=mine' }), allow, 'a watch of one secret, as kubelets do');
    assert.deepEqual(await ask({ resource: 'configmaps', name: 'cm' }), allow);
    assert.deepEqual(await ask({ name: 'theirs' }), NO_RELATIONSHIP);
    assert.deepEqual(await ask({ name: 'unknown' }), NO_RELATIONSHIP);
    assert.deepEqual(await ask({ verb: 'list' }), no('No Object name found'));
    assert.deepEqual(await ask({ verb: 'update', name: 'mine' }), no('can only read resources of this type'));
    assert.deepEqual(await ask({ subresource: 'x', name: 'mine' }), no('cannot read subresource'));
    assert.deepEqual(await ask({ namespace: '', name: 'mine' }), no('can only read namespaced object of this type'));
  });

  it('lets a node get its pods\' claims and their volumes, and only get them', async () => {
    const { ask } = setup();
    assert.deepEqual(await ask({ resource: 'persistentvolumeclaims', name: 'claim' }), allow);
    assert.deepEqual(await ask({ resource: 'persistentvolumes', namespace: '', name: 'pv1' }), allow);
    assert.deepEqual(await ask({ resource: 'persistentvolumes', namespace: '', name: 'pv2' }), NO_RELATIONSHIP);
    assert.deepEqual(await ask({ resource: 'persistentvolumeclaims', verb: 'list' }), no('can only get individual resources of this type'));
    assert.deepEqual(await ask({ resource: 'persistentvolumeclaims', name: 'claim', subresource: 'status', verb: 'patch' }), allow);
    assert.deepEqual(await ask({ resource: 'persistentvolumeclaims', name: 'claim', subresource: 'status', verb: 'get' }), no('can only get/update/patch this type'));
    assert.deepEqual(await ask({ resource: 'persistentvolumes', name: 'pv1', namespace: '', subresource: 'status' }), no('cannot get subresource'));
  });

  it('lets a node create tokens only for its pods\' service accounts', async () => {
    const { ask } = setup();
    assert.deepEqual(await ask({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'sa' }), allow);
    assert.deepEqual(await ask({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'other' }), NO_RELATIONSHIP);
    assert.deepEqual(await ask({ resource: 'serviceaccounts', verb: 'get', name: 'sa' }), no('can only create tokens for individual service accounts'));
    assert.deepEqual(await ask({ resource: 'serviceaccounts', verb: 'create', name: 'sa' }), no('can only create token subresource of serviceaccount'));
  });

  it('lets a node read its own Node only, and create, update and patch Nodes (NodeRestriction narrows)', async () => {
    const { ask } = setup();
    const nodes = { resource: 'nodes', namespace: '' };
    assert.deepEqual(await ask({ ...nodes, name: 'a' }), allow);
    assert.deepEqual(await ask({ ...nodes, verb: 'watch', fieldSelector: 'metadata.name=a' }), allow);
    assert.deepEqual(await ask({ ...nodes, verb: 'list' }), no("node 'a' cannot read all nodes, only its own Node object"));
    assert.deepEqual(await ask({ ...nodes, name: 'b' }), no("node 'a' cannot read 'b', only its own Node object"));
    for (const verb of ['create', 'update', 'patch']) assert.deepEqual(await ask({ ...nodes, verb, name: 'b' }), allow, verb);
    assert.deepEqual(await ask({ ...nodes, verb: 'patch', subresource: 'status', name: 'a' }), allow);
    assert.deepEqual(await ask({ ...nodes, verb: 'delete', name: 'a' }), no(''));
  });

  it('lets a node read its own pods (by name or by spec.nodeName) and write their status, mirror pods and evictions', async () => {
    const { ask } = setup();
    const pods = { resource: 'pods' };
    assert.deepEqual(await ask({ ...pods, name: 'web' }), allow);
    assert.deepEqual(await ask({ ...pods, name: 'db' }), NO_RELATIONSHIP);
    assert.deepEqual(await ask({ ...pods, verb: 'watch', namespace: '', fieldSelector: 'spec.nodeName=a' }), allow);
    assert.deepEqual(await ask({ ...pods, verb: 'list', namespace: '', fieldSelector: 'spec.nodeName=b' }), no('can only list/watch pods with spec.nodeName field selector'));
    assert.deepEqual(await ask({ ...pods, verb: 'list', namespace: '' }), no('can only list/watch pods with spec.nodeName field selector'));
    assert.deepEqual(await ask({ ...pods, verb: 'list', fieldSelector: 'metadata.name=web' }), allow);
    for (const verb of ['create', 'delete']) assert.deepEqual(await ask({ ...pods, verb, name: 'x' }), allow, verb);
    assert.deepEqual(await ask({ ...pods, verb: 'update', subresource: 'status', name: 'web' }), allow);
    assert.deepEqual(await ask({ ...pods, verb: 'create', subresource: 'eviction', name: 'web' }), allow);
    assert.deepEqual(await ask({ ...pods, verb: 'update', name: 'web' }), no(''));
    assert.deepEqual(await ask({ ...pods, verb: 'create', subresource: 'exec', name: 'web' }), no(''));
  });

  it('lets a node use its own lease in kube-node-lease and its own CSINode', async () => {
    const { ask } = setup();
    const leases = { resource: 'leases', apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease' };
    assert.deepEqual(await ask({ ...leases, verb: 'update', name: 'a' }), allow);
    assert.deepEqual(await ask({ ...leases, verb: 'create' }), allow);
    assert.deepEqual(await ask({ ...leases, verb: 'update', name: 'b' }), no('can only access node lease with the same name as the requesting node'));
    assert.deepEqual(await ask({ ...leases, namespace: 'default', name: 'a' }), no('can only access leases in the "kube-node-lease" system namespace'));
    assert.deepEqual(await ask({ ...leases, verb: 'list' }), no('can only get, create, update, patch, or delete a node lease'));
    const csinodes = { resource: 'csinodes', apiGroup: 'storage.k8s.io', namespace: '' };
    assert.deepEqual(await ask({ ...csinodes, name: 'a' }), allow);
    assert.deepEqual(await ask({ ...csinodes, name: 'b' }), no('can only access CSINode with the same name as the requesting node'));
    assert.deepEqual(await ask({ ...csinodes, name: 'a', subresource: 's' }), no('cannot authorize CSINode subresources'));
    assert.deepEqual(await ask({ ...csinodes, verb: 'watch' }), no('can only get, create, update, patch, or delete a CSINode'));
  });

  it('answers other resources from upstream\'s node rules', async () => {
    const { ask } = setup();
    assert.deepEqual(await ask({ resource: 'services', verb: 'list', namespace: '' }), allow);
    assert.deepEqual(await ask({ resource: 'events', verb: 'create' }), allow);
    assert.deepEqual(await ask({ resource: 'endpoints', verb: 'get', name: 'kubernetes' }), allow);
    assert.deepEqual(await ask({ resource: 'tokenreviews', apiGroup: 'authentication.k8s.io', verb: 'create', namespace: '' }), allow);
    assert.deepEqual(await ask({ resource: 'deployments', apiGroup: 'apps', verb: 'list' }), no(''));
    assert.deepEqual(await ask({ resource: 'events', verb: 'delete', name: 'e' }), no(''));
    assert.deepEqual(await ask({ isResourceRequest: false, resource: '', verb: 'get', path: '/healthz' }), no(''));
  });

  it('resourceslices: create, by relationship, or listed by the node\'s own nodeName', async () => {
    const { ask } = setup();
    const slices = { resource: 'resourceslices', apiGroup: 'resource.k8s.io', namespace: '' };
    assert.deepEqual(await ask({ ...slices, verb: 'create' }), allow);
    assert.deepEqual(await ask({ ...slices, verb: 'list', fieldSelector: 'nodeName=a' }), allow);
    assert.deepEqual(await ask({ ...slices, verb: 'list' }), no('can only list/watch/deletecollection resourceslices with nodeName field selector'));
    assert.deepEqual(await ask({ ...slices, verb: 'get', name: 's' }), NO_RELATIONSHIP);
  });

  it('a node\'s permissions are not enumerable (upstream\'s RulesFor)', async () => {
    const { authorizer } = setup();
    assert.deepEqual(await authorizer.rulesFor(NODE_A, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
    assert.deepEqual(await authorizer.rulesFor({ name: 'alice', groups: [] }, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it('forgets a deleted pod\'s secrets', async () => {
    const { ask, graph } = setup();
    graph.deletePod('ns', 'web');
    assert.deepEqual(await ask({ name: 'mine' }), NO_RELATIONSHIP);
  });
});
