/**
 * The ClusterRoles upstream's API server creates at start
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go), as data: the
 * user-facing roles (cluster-admin, and admin, edit, view aggregated from the
 * system:aggregate-to-* roles), the discovery and basic-user roles, and the
 * roles of the components. Each carries the autoupdate annotation and the
 * kubernetes.io/bootstrapping label, so reconciliation at each start adds
 * what a newer version brings.
 */
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { EVENTS, READ, READ_WRITE, rule, urls, WRITE } from './rules.js';
import { CONTROLLER_MANAGER_RULES } from './controller-manager-rules.js';

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
export const BOOTSTRAPPING_LABEL = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

const aggregateTo = (role: string): Record<string, string> => ({ [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true' });

function clusterRole(name: string, rules: PolicyRule[], options: { labels?: Record<string, string>; aggregateFrom?: string } = {}): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAPPING_LABEL, ...options.labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    ...(options.aggregateFrom !== undefined ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregateTo(options.aggregateFrom) }] } } : {}),
    rules,
  };
}

const REVIEW = ['create'];
const LEASES = 'coordination.k8s.io';

/**
 * What every kubelet may do (upstream's NodeRules): the rules of the
 * system:node ClusterRole, which upstream binds to no one, and the Node
 * authorizer's answer for the resources its graph does not subdivide.
 */
export function nodeRules(): PolicyRule[] {
  return [
    rule(REVIEW, ['authentication.k8s.io'], ['tokenreviews']),
    rule(REVIEW, ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(READ, [''], ['services']),
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['update', 'patch'], [''], ['nodes/status']),
    rule(['update', 'patch'], [''], ['nodes']),
    rule(['create', 'update', 'patch'], [''], ['events']),
    rule(READ, [''], ['pods']),
    rule(['create', 'delete'], [''], ['pods']),
    rule(['update', 'patch'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    rule(READ, [''], ['secrets', 'configmaps']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [''], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], [LEASES], ['leases']),
    rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
    rule(READ, ['storage.k8s.io'], ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
    rule(READ, ['node.k8s.io'], ['runtimeclasses']),
  ];
}

export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('admin', [], { aggregateFrom: 'admin' }),
    clusterRole('edit', [], { aggregateFrom: 'edit', labels: aggregateTo('admin') }),
    clusterRole('view', [], { aggregateFrom: 'view', labels: aggregateTo('edit') }),
    clusterRole(
      'system:aggregate-to-admin',
      [rule(REVIEW, ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, ['rbac.authorization.k8s.io'], ['roles', 'rolebindings'])],
      { labels: aggregateTo('admin') },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
        rule(['impersonate'], [''], ['serviceaccounts']),
        rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        rule(['create'], [''], ['pods/eviction']),
        rule(WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
        rule(['create'], [''], ['serviceaccounts/token']),
        rule(WRITE, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
        rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
        rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
        rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(WRITE, ['policy'], ['poddisruptionbudgets']),
        rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
        rule(READ_WRITE, [LEASES], ['leases']),
      ],
      { labels: aggregateTo('edit') },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
        rule(READ, [''], ['namespaces']),
        rule(READ, ['discovery.k8s.io'], ['endpointslices']),
        rule(READ, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
        rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
        rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
        rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
      { labels: aggregateTo('view') },
    ),
    clusterRole('system:discovery', [
      urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*']),
    ]),
    clusterRole('system:monitoring', [urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])]),
    clusterRole('system:basic-user', [
      rule(REVIEW, ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(REVIEW, ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    clusterRole('system:auth-delegator', [rule(REVIEW, ['authentication.k8s.io'], ['tokenreviews']), rule(REVIEW, ['authorization.k8s.io'], ['subjectaccessreviews'])]),
    clusterRole('system:heapster', [rule(READ, [''], ['events', 'pods', 'nodes', 'namespaces']), rule(READ, ['extensions'], ['deployments'])]),
    clusterRole('system:node-problem-detector', [rule(['get'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), EVENTS]),
    clusterRole('system:kubelet-api-admin', [rule(['get', 'list', 'watch', 'proxy'], [''], ['nodes']), rule(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log'])]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [''], ['services', 'endpoints']),
      rule(READ, [''], ['nodes']),
      EVENTS,
      rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ]),
    clusterRole('system:kube-aggregator', [rule(READ, [''], ['services', 'endpoints'])]),
    clusterRole('system:kube-controller-manager', CONTROLLER_MANAGER_RULES),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], [''], ['endpoints', 'services'])]),
    // kubeadm's CoreDNS addon role (not in upstream's API server bootstrap policy): k8ts's cluster DNS runs as system:coredns.
    clusterRole('system:coredns', [
      rule(['list', 'watch'], [''], ['endpoints', 'services', 'pods', 'namespaces']),
      rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['get', 'list', 'watch', 'create', 'delete'], [''], ['persistentvolumes']),
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['watch'], [''], ['events']),
      EVENTS,
    ]),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumes']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumeclaims']),
    ]),
    clusterRole('system:kube-scheduler', [
      EVENTS,
      rule(['create'], [LEASES], ['leases']),
      rule(['get', 'update'], [LEASES], ['leases'], ['kube-scheduler']),
      rule(READ, [''], ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      rule(['create'], [''], ['bindings', 'pods/binding']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(READ, [''], ['replicationcontrollers', 'services']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(REVIEW, ['authentication.k8s.io'], ['tokenreviews']),
      rule(REVIEW, ['authorization.k8s.io'], ['subjectaccessreviews']),
      rule(READ, ['storage.k8s.io'], ['csinodes']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['storage.k8s.io'], ['csidrivers']),
      rule(READ, ['storage.k8s.io'], ['csistoragecapacities']),
    ]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client'])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet'])]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kubelet-serving'])]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown'])]),
    // Upstream's controller role of the CSR approver, signer and cleaner (controller_policy.go); bound to the controller manager (bindings.ts).
    clusterRole('system:controller:certificate-controller', [
      rule(['get', 'list', 'watch', 'delete'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
      rule(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      EVENTS,
    ]),
  ];
}
