import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { StatusError } from '../../machinery/status.js';
import { newMemoryStorage } from '../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../registry/builtin.js';
import { ObjectStorage } from '../registry/generic/object-storage.js';
import { Registry } from '../registry/registry.js';
import { newAuthorizationPipeline, type AuthorizationPipeline } from './authorization-pipeline.js';
import { EscalationGuard } from './authorizers/rbac/escalation.js';
import { ensureBootstrapPolicy } from './bootstrap-policy/reconcile.js';

const RBAC = 'rbac.authorization.k8s.io';

async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('authorization pipeline over the server stores', () => {
  let registry: Registry;
  let pipeline: AuthorizationPipeline;
  const store = (resource: string) => registry.store(RBAC, 'v1', resource);
  const alice = { name: 'alice', groups: ['system:authenticated'] };
  const can = async (verb: string, resource: string, namespace = 'default') =>
    (await pipeline.authorizer.authorize({ user: alice, verb, isResourceRequest: true, path: '', namespace, apiGroup: '', apiVersion: 'v1', resource, subresource: '', name: '' })).decision;

  before(async () => {
    const escalation = new EscalationGuard();
    registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions({ escalation }) });
    for (const name of ['default', 'kube-system', 'kube-public']) {
      await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    pipeline = await newAuthorizationPipeline({ registry, escalation, modes: ['RBAC'] });
  });

  after(() => {
    pipeline.stop();
    registry.stop();
  });

  it('creates the bootstrap policy and aggregates view into edit into admin', async () => {
    await eventually(async () => ((await store('clusterroles').get(undefined, 'admin')).rules as unknown[] | undefined ?? []).some((r) => JSON.stringify(r).includes('"pods"') && JSON.stringify(r).includes('"list"')), 'admin to include view');
  });

  it('follows binding changes without a restart', async () => {
    assert.equal(await can('list', 'pods'), 'NoOpinion');
    await store('rolebindings').create('default', { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'a' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }] } as KubeObject);
    await eventually(async () => (await can('list', 'pods')) === 'Allow', 'the binding to apply');
    await store('rolebindings').delete('default', 'a');
    await eventually(async () => (await can('list', 'pods')) === 'NoOpinion', 'the binding to go');
  });

  it('refuses a user’s escalating role in the store, and lets the server’s own writes through', async () => {
    const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'r' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] } as KubeObject;
    await assert.rejects(store('roles').create('default', structuredClone(role), { user: alice }), (e: unknown) => e instanceof StatusError && e.status.code === 403);
    await store('roles').create('default', structuredClone(role));
    await assert.rejects(
      store('roles').update('default', 'r', (current) => ({ ...current!, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }), { user: alice }),
      (e: unknown) => e instanceof StatusError && e.status.code === 403,
    );
  });

  it('reconciles: missing rules come back, autoupdate=false is left alone', async () => {
    await store('clusterroles').update(undefined, 'system:discovery', (c) => ({ ...c!, rules: [] }));
    await store('clusterroles').update(undefined, 'system:basic-user', (c) => ({ ...c!, metadata: { ...c!.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] }));
    const stores = { clusterRoles: store('clusterroles'), clusterRoleBindings: store('clusterrolebindings'), roles: store('roles'), roleBindings: store('rolebindings') };
    await ensureBootstrapPolicy(stores);
    assert.ok(((await store('clusterroles').get(undefined, 'system:discovery')).rules as unknown[]).length > 0);
    assert.deepEqual((await store('clusterroles').get(undefined, 'system:basic-user')).rules, []);
  });
});
