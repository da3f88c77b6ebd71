import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PolicyIndex, type PolicyObjects } from './policy-index.js';

const RBAC = 'rbac.authorization.k8s.io';
const objects: PolicyObjects = {
  clusterRoles: [
    { metadata: { name: 'reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }] },
    { metadata: { name: 'writer' }, rules: [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }] },
  ],
  roles: [],
  clusterRoleBindings: [
    { metadata: { name: 'a-broken' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'missing' }, subjects: [{ kind: 'Group', name: 'team' }] },
    { metadata: { name: 'b-readers' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'team' }] },
  ],
  roleBindings: [
    { metadata: { name: 'writers', namespace: 'ns' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'writer' }, subjects: [{ kind: 'Group', name: 'team' }] },
    { metadata: { name: 'missing-role', namespace: 'ns' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'nope' }, subjects: [{ kind: 'Group', name: 'team' }] },
  ],
};

describe('PolicyIndex.grantsFor', () => {
  it('lists the rules of the user and its groups in visiting order, with the errors met before each', () => {
    const index = new PolicyIndex(objects);
    const grants = index.grantsFor({ name: 'bob', groups: ['team'] }, 'ns');
    assert.deepEqual(
      grants.rules.map((g) => [g.binding.metadata?.name, g.rule.verbs?.[0], g.namespace, g.subject.name, g.errorsBefore]),
      [
        ['b-readers', 'get', '', 'team', 1],
        ['b-readers', 'list', '', 'team', 1],
        ['writers', 'create', 'ns', 'team', 1],
      ],
    );
    assert.deepEqual(grants.errors, ['clusterrole.rbac.authorization.k8s.io "missing" not found', 'role.rbac.authorization.k8s.io "nope" not found']);
  });

  it('leaves RoleBindings out of cluster-wide grants and names the subject that matched', () => {
    const grants = new PolicyIndex(objects).grantsFor({ name: 'alice', groups: [] }, '');
    assert.deepEqual(grants.rules.map((g) => [g.binding.metadata?.name, g.subject.kind]), [['b-readers', 'User'], ['b-readers', 'User']]);
    assert.deepEqual(grants.errors, []);
  });

  it('resolves a user once per index, and apart for other groups or namespaces', () => {
    const index = new PolicyIndex(objects);
    const first = index.grantsFor({ name: 'bob', groups: ['team'] }, 'ns');
    assert.equal(index.grantsFor({ name: 'bob', groups: ['team'], uid: 'x' }, 'ns'), first);
    assert.notEqual(index.grantsFor({ name: 'bob', groups: [] }, 'ns'), first);
    assert.equal(index.grantsFor({ name: 'bob', groups: [] }, 'ns').rules.length, 0);
    assert.equal(index.grantsFor({ name: 'bob', groups: ['team'] }, 'other').rules.length, 2);
    // A new index (the policy changed) resolves again.
    const changed = new PolicyIndex({ ...objects, roleBindings: [] });
    assert.equal(changed.grantsFor({ name: 'bob', groups: ['team'] }, 'ns').rules.length, 2);
  });
});
