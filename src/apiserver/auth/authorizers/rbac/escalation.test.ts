import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../machinery/status.js';
import { PolicyIndex } from './policy-index.js';
import { newRbacAuthorizer } from './rbac-authorizer.js';
import { EscalationGuard } from './escalation.js';

const RBAC = 'rbac.authorization.k8s.io';
const policy = new PolicyIndex({
  clusterRoles: [
    { metadata: { name: 'pods' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] },
    { metadata: { name: 'role-admin' }, rules: [{ verbs: ['*'], apiGroups: [RBAC], resources: ['roles', 'rolebindings'] }] },
    { metadata: { name: 'binder' }, rules: [{ verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }] },
    { metadata: { name: 'cluster-admin' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
  ],
  roles: [],
  clusterRoleBindings: [
    { metadata: { name: 'a' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'pods' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }] },
    { metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'binder' }, subjects: [{ kind: 'User', name: 'bob' }] },
  ],
  roleBindings: [],
});
const source = { current: () => policy };
const guard = new EscalationGuard();
guard.bind({ authorizer: newRbacAuthorizer(source), policy: source });
const alice = { name: 'alice', groups: ['devs', 'system:authenticated'] };

async function rejects(p: Promise<void>, message: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof StatusError && e.status.code === 403 && e.status.message === message);
}

describe('EscalationGuard', () => {
  it('lets a user write rules they hold', async () => {
    await guard.checkRole(alice, { namespace: 'default', name: 'r', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
  });
  it('refuses rules a user does not hold, with upstream message', async () => {
    await rejects(
      guard.checkRole(alice, { namespace: 'default', name: 'r', rules: [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }] }),
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    );
  });
  it('lets system:masters and internal writes through', async () => {
    await guard.checkRole({ name: 'root', groups: ['system:masters'] }, { namespace: '', name: 'x', rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    await guard.checkRole(undefined, { namespace: '', name: 'x', rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
  });
  it('refuses an aggregationRule without full authority', async () => {
    await rejects(guard.checkRole(alice, { namespace: '', name: 'agg', rules: [], aggregated: true }), 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });
  it('binds a held role, refuses another, unless the bind verb allows it', async () => {
    await guard.checkBinding(alice, { namespace: 'default', name: 'b1', roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'pods' } });
    await rejects(
      guard.checkBinding(alice, { namespace: '', name: 'b2', roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'role-admin' } }),
      'clusterrolebindings.rbac.authorization.k8s.io "b2" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["rbac.authorization.k8s.io"], Resources:["rolebindings"], Verbs:["*"]}\n{APIGroups:["rbac.authorization.k8s.io"], Resources:["roles"], Verbs:["*"]}',
    );
    await guard.checkBinding({ name: 'bob', groups: [] }, { namespace: '', name: 'b3', roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' } });
  });
  it('answers 404 for a binding to a missing role', async () => {
    await assert.rejects(guard.checkBinding(alice, { namespace: 'default', name: 'b', roleRef: { apiGroup: RBAC, kind: 'Role', name: 'nope' } }), (e: unknown) => e instanceof StatusError && e.status.code === 404);
  });
});
