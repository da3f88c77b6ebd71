import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Attributes } from '../interface.js';
import { PolicyIndex, type PolicyObjects } from './policy-index.js';
import { newRbacAuthorizer } from './rbac-authorizer.js';

const RBAC = 'rbac.authorization.k8s.io';
const objects: PolicyObjects = {
  clusterRoles: [
    { metadata: { name: 'reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] },
    { metadata: { name: 'healthz' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] },
  ],
  roles: [{ metadata: { name: 'cm', namespace: 'team' }, rules: [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }] }],
  clusterRoleBindings: [
    { metadata: { name: 'anyone-healthz' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'healthz' }, subjects: [{ kind: 'Group', name: 'system:unauthenticated' }] },
    { metadata: { name: 'broken' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'missing' }, subjects: [{ kind: 'User', name: 'carol' }] },
  ],
  roleBindings: [
    { metadata: { name: 'alice-cm', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'cm' }, subjects: [{ kind: 'User', name: 'alice' }] },
    { metadata: { name: 'sa-read', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'bot' }] },
    { metadata: { name: 'other-sa', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'build' }] },
  ],
};
const authorizer = newRbacAuthorizer({ current: () => new PolicyIndex(objects) });

const attrs = (name: string, groups: string[], over: Partial<Attributes>): Attributes => ({
  user: { name, groups }, verb: 'get', isResourceRequest: true, path: '', namespace: 'team', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: '', ...over,
});

describe('RBAC authorizer', () => {
  it('allows by a RoleBinding of a Role, with upstream reason', async () => {
    const r = await authorizer.authorize(attrs('alice', [], { resource: 'configmaps', verb: 'delete' }));
    assert.deepEqual(r, { decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "alice-cm/team" of Role "cm" to User "alice"' });
  });

  it('has no opinion outside the binding namespace', async () => {
    assert.equal((await authorizer.authorize(attrs('alice', [], { resource: 'configmaps', namespace: 'other' }))).decision, 'NoOpinion');
  });

  it('defaults a ServiceAccount subject to the binding namespace', async () => {
    const bot = await authorizer.authorize(attrs('system:serviceaccount:team:bot', [], {}));
    assert.equal(bot.reason, 'RBAC: allowed by RoleBinding "sa-read/team" of ClusterRole "reader" to ServiceAccount "bot/team"');
    assert.equal((await authorizer.authorize(attrs('system:serviceaccount:build:ci', [], {}))).decision, 'Allow');
    assert.equal((await authorizer.authorize(attrs('system:serviceaccount:other:bot', [], {}))).decision, 'NoOpinion');
  });

  it('allows groups and non-resource URLs by ClusterRoleBinding', async () => {
    const r = await authorizer.authorize(attrs('system:anonymous', ['system:unauthenticated'], { isResourceRequest: false, path: '/healthz', namespace: '' }));
    assert.equal(r.reason, 'RBAC: allowed by ClusterRoleBinding "anyone-healthz" of ClusterRole "healthz" to Group "system:unauthenticated"');
  });

  it('reports a binding to a missing role in the reason', async () => {
    const r = await authorizer.authorize(attrs('carol', [], {}));
    assert.deepEqual(r, { decision: 'NoOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found' });
  });

  it('lists the rules of a user in a namespace', async () => {
    const rules = await authorizer.rulesFor({ name: 'alice', groups: ['system:unauthenticated'] }, 'team');
    assert.deepEqual(rules, {
      resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
    });
    assert.equal((await authorizer.rulesFor({ name: 'carol', groups: [] }, 'team')).evaluationError, 'clusterrole.rbac.authorization.k8s.io "missing" not found');
  });

  it('answers a repeated request as before while the policy stays, and anew once a Role or binding changed', async () => {
    let policy = new PolicyIndex(objects);
    const live = newRbacAuthorizer({ current: () => policy });
    const deletePods = attrs('alice', [], { verb: 'delete', resource: 'pods' });
    assert.equal((await live.authorize(deletePods)).decision, 'NoOpinion');
    assert.equal((await live.authorize(deletePods)).decision, 'NoOpinion');
    // A new binding (as the informer-fed source builds a new index on every change).
    policy = new PolicyIndex({
      ...objects,
      roleBindings: [
        ...objects.roleBindings,
        { metadata: { name: 'alice-pods', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin-pods' }, subjects: [{ kind: 'User', name: 'alice' }] },
      ],
      clusterRoles: [...objects.clusterRoles, { metadata: { name: 'admin-pods' }, rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] }],
    });
    assert.deepEqual(await live.authorize(deletePods), { decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "alice-pods/team" of ClusterRole "admin-pods" to User "alice"' });
    // And taken away again.
    policy = new PolicyIndex(objects);
    assert.equal((await live.authorize(deletePods)).decision, 'NoOpinion');
  });

  it('keeps answers apart by verb, group, resource, subresource, name and path', async () => {
    const policy = new PolicyIndex({
      ...objects,
      clusterRoles: [...objects.clusterRoles, { metadata: { name: 'one-pod' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'], resourceNames: ['a'] }] }],
      clusterRoleBindings: [...objects.clusterRoleBindings, { metadata: { name: 'dave-one-pod' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'one-pod' }, subjects: [{ kind: 'User', name: 'dave' }] }],
    });
    const live = newRbacAuthorizer({ current: () => policy });
    const base = { resource: 'pods', subresource: 'log', name: 'a' };
    assert.equal((await live.authorize(attrs('dave', [], base))).decision, 'Allow');
    assert.equal((await live.authorize(attrs('dave', [], { ...base, name: 'b' }))).decision, 'NoOpinion');
    assert.equal((await live.authorize(attrs('dave', [], { ...base, subresource: '' }))).decision, 'NoOpinion');
    assert.equal((await live.authorize(attrs('dave', [], { ...base, verb: 'list' }))).decision, 'NoOpinion');
    assert.equal((await live.authorize(attrs('dave', [], { ...base, apiGroup: 'apps' }))).decision, 'NoOpinion');
    assert.equal((await live.authorize(attrs('dave', [], base))).decision, 'Allow');
    assert.equal((await live.authorize(attrs('anyone', ['system:unauthenticated'], { isResourceRequest: false, path: '/healthz', resource: '' }))).decision, 'Allow');
    assert.equal((await live.authorize(attrs('anyone', ['system:unauthenticated'], { isResourceRequest: false, path: '/metrics', resource: '' }))).decision, 'NoOpinion');
  });
});
