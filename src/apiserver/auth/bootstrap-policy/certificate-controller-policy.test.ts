import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Attributes } from '../authorizers/interface.js';
import { PolicyIndex } from '../authorizers/rbac/policy-index.js';
import { newRbacAuthorizer } from '../authorizers/rbac/rbac-authorizer.js';
import { bootstrapClusterRoleBindings, bootstrapRoleBindings, bootstrapRoles } from './bindings.js';
import { bootstrapClusterRoles } from './cluster-roles.js';

const authorizer = newRbacAuthorizer({
  current: () =>
    new PolicyIndex({ clusterRoles: bootstrapClusterRoles(), clusterRoleBindings: bootstrapClusterRoleBindings(), roles: bootstrapRoles(), roleBindings: bootstrapRoleBindings() } as never),
});
const CSR = { apiGroup: 'certificates.k8s.io', resource: 'certificatesigningrequests' };
const ask = async (user: { name: string; groups: string[] }, over: Partial<Attributes>): Promise<string> =>
  (await authorizer.authorize({ user, verb: 'get', isResourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: 'v1', resource: '', subresource: '', name: '', ...over })).decision;

describe('bootstrap policy for TLS bootstrap', () => {
  const kcm = { name: 'system:kube-controller-manager', groups: ['system:authenticated'] };

  it('lets the controller manager list, watch, approve, sign and delete CSRs and write /approval and /status', async () => {
    for (const verb of ['list', 'watch', 'get', 'delete']) assert.equal(await ask(kcm, { ...CSR, verb }), 'Allow', verb);
    for (const subresource of ['approval', 'status']) assert.equal(await ask(kcm, { ...CSR, verb: 'update', subresource }), 'Allow', subresource);
    const signer = { apiGroup: 'certificates.k8s.io', apiVersion: '*', resource: 'signers' };
    assert.equal(await ask(kcm, { ...signer, verb: 'approve', name: 'kubernetes.io/kube-apiserver-client-kubelet' }), 'Allow');
    assert.equal(await ask(kcm, { ...signer, verb: 'approve', name: 'kubernetes.io/kube-apiserver-client' }), 'NoOpinion');
    for (const name of ['kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown']) {
      assert.equal(await ask(kcm, { ...signer, verb: 'sign', name }), 'Allow', name);
    }
    assert.equal(await ask(kcm, { ...signer, verb: 'sign', name: 'example.com/x' }), 'NoOpinion');
  });

  it('lets the controller manager clean up token Secrets in kube-system and sign cluster-info in kube-public', async () => {
    for (const verb of ['list', 'watch', 'delete']) assert.equal(await ask(kcm, { resource: 'secrets', namespace: 'kube-system', verb }), 'Allow', verb);
    assert.equal(await ask(kcm, { resource: 'configmaps', namespace: 'kube-public', verb: 'update', name: 'cluster-info' }), 'Allow');
  });

  it('lets a bootstrapper bound to system:node-bootstrapper create CSRs, and nothing more', async () => {
    const bootstrapper = { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:authenticated'] };
    // Not bound by default (k8ts server binds its node token group; kubeadm does the same).
    assert.equal(await ask(bootstrapper, { ...CSR, verb: 'create' }), 'NoOpinion');
    assert.equal(await ask(bootstrapper, { resource: 'secrets', namespace: 'kube-system', verb: 'list' }), 'NoOpinion');
  });
});
