/**
 * The bindings, namespaced Roles and RoleBindings of upstream's bootstrap
 * policy (policy.go, namespace_policy.go), as data. system:node has no
 * subjects, as upstream: kubelets are authorized by the Node authorizer.
 */
import type { ClusterRoleBinding, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL } from './cluster-roles.js';
import { EVENTS, rule } from './rules.js';

const RBAC = 'rbac.authorization.k8s.io';
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace !== undefined ? { namespace } : {}),
  labels: { ...BOOTSTRAPPING_LABEL },
  annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
});
const group = (name: string): Subject => ({ apiGroup: RBAC, kind: 'Group', name });
const user = (name: string): Subject => ({ apiGroup: RBAC, kind: 'User', name });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterBinding(name: string, role: string, subjects: Subject[]): ClusterRoleBinding {
  return { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: meta(name), roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, ...(subjects.length > 0 ? { subjects } : {}) };
}

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
    clusterBinding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
    clusterBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterBinding('system:node-proxier', 'system:node-proxier', [user('system:kube-proxy')]),
    clusterBinding('system:kube-controller-manager', 'system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterBinding('system:kube-dns', 'system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    // kubeadm binds it to the ServiceAccount kube-system/coredns; `k8ts dns` authenticates with a certificate as the user system:coredns.
    clusterBinding('system:coredns', 'system:coredns', [user('system:coredns'), serviceAccount('kube-system', 'coredns')]),
    clusterBinding('system:kube-scheduler', 'system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:volume-scheduler', 'system:volume-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:node', 'system:node', []),
    // Upstream binds its controller roles to one service account each; k8ts's controller manager runs every controller as itself.
    clusterBinding('system:controller:certificate-controller', 'system:controller:certificate-controller', [
      user('system:kube-controller-manager'),
      serviceAccount('kube-system', 'certificate-controller'),
    ]),
    // k8ts's kubelet-serving-approver (a controller of ours, not upstream's) approves a node's CSR for its own serving certificate.
    clusterBinding('k8ts:kubelet-serving-approver', 'system:certificates.k8s.io:kubelet-serving-approver', [user('system:kube-controller-manager')]),
    clusterBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  ];
}

const LEADER_LOCKING = [
  rule(['watch', 'list', 'get', 'create', 'update'], ['coordination.k8s.io'], ['leases']),
  rule(['watch', 'list', 'get', 'create', 'update'], ['coordination.k8s.io'], ['leasecandidates']),
];

function role(namespace: string, name: string, rules: Role['rules']): Role {
  return { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: meta(name, namespace), rules: rules ?? [] };
}

export function bootstrapRoles(): Role[] {
  return [
    role('kube-public', 'system:controller:bootstrap-signer', [
      rule(['get', 'list', 'watch'], [''], ['configmaps']),
      rule(['update'], [''], ['configmaps'], ['cluster-info']),
      EVENTS,
    ]),
    role('kube-system', 'extension-apiserver-authentication-reader', [rule(['get', 'list', 'watch'], [''], ['configmaps'], ['extension-apiserver-authentication'])]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', LEADER_LOCKING),
    role('kube-system', 'system::leader-locking-kube-scheduler', LEADER_LOCKING),
    role('kube-system', 'system:controller:bootstrap-signer', [rule(['get', 'list', 'watch'], [''], ['secrets'])]),
    role('kube-system', 'system:controller:cloud-provider', [rule(['create', 'get', 'list', 'watch'], [''], ['configmaps'])]),
    role('kube-system', 'system:controller:token-cleaner', [rule(['delete', 'get', 'list', 'watch'], [''], ['secrets']), EVENTS]),
  ];
}

function binding(namespace: string, name: string, roleName: string, subjects: Subject[]): RoleBinding {
  return { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: meta(name, namespace), roleRef: { apiGroup: RBAC, kind: 'Role', name: roleName }, subjects };
}

export function bootstrapRoleBindings(): RoleBinding[] {
  return [
    binding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer'), user('system:kube-controller-manager')]),
    binding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')]),
    binding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
      user('system:kube-controller-manager'),
      serviceAccount('kube-system', 'kube-controller-manager'),
      serviceAccount('kube-system', 'leader-election-controller'),
    ]),
    binding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
    binding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer'), user('system:kube-controller-manager')]),
    binding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [serviceAccount('kube-system', 'cloud-provider')]),
    binding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('kube-system', 'token-cleaner'), user('system:kube-controller-manager')]),
  ];
}
