/**
 * The rules of system:kube-controller-manager. Upstream's own role is small
 * because kube-controller-manager runs each controller under a service
 * account of its own (--use-service-account-credentials, controller_policy.go);
 * ours runs every controller under its one identity, so its role is upstream's
 * plus the union of the per-controller roles of the controllers in
 * src/controllers/ (cronjob, daemonset, deployment, disruption, endpoints,
 * endpointslice, garbage collector, job, namespace, node IPAM, node lifecycle,
 * replicaset, resourcequota, root-ca-cert-publisher, serviceaccount, statefulset, taint eviction).
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { EVENTS, READ, rule } from './rules.js';

const LEASES = 'coordination.k8s.io';

/** Upstream's system:kube-controller-manager ClusterRole. */
const UPSTREAM: PolicyRule[] = [
  EVENTS,
  rule(['create'], [LEASES], ['leases']),
  rule(['get', 'update'], [LEASES], ['leases'], ['kube-controller-manager']),
  rule(['create'], [''], ['secrets', 'serviceaccounts']),
  rule(['delete'], [''], ['secrets']),
  rule(['get'], [''], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
  rule(['update'], [''], ['secrets', 'serviceaccounts']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  rule(['list', 'watch'], ['*'], ['*']),
  rule(['create'], [''], ['serviceaccounts/token']),
];

/** What the controllers of src/controllers/ need beyond it (upstream's per-controller roles, merged). */
const CONTROLLERS: PolicyRule[] = [
  // generic-garbage-collector and namespace-controller: every resource.
  rule(['get', 'list', 'watch', 'patch', 'update', 'delete', 'deletecollection'], ['*'], ['*']),
  // namespace-controller
  rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
  // cronjob, job
  rule(['update', 'patch'], ['batch'], ['cronjobs/status', 'cronjobs/finalizers', 'jobs/status', 'jobs/finalizers']),
  rule(['create'], ['batch'], ['jobs']),
  // daemonset, deployment, replicaset, statefulset
  rule(['update'], ['apps'], ['daemonsets/status', 'daemonsets/finalizers', 'deployments/status', 'deployments/finalizers', 'replicasets/status', 'replicasets/finalizers', 'statefulsets/status', 'statefulsets/finalizers']),
  rule(['create'], ['apps'], ['replicasets', 'controllerrevisions']),
  rule(['create'], [''], ['pods', 'persistentvolumeclaims']),
  rule(['create'], [''], ['pods/binding']),
  // disruption
  rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
  rule(['get'], ['*'], ['*/scale']),
  // endpoints, endpointslice
  rule(['create'], [''], ['endpoints', 'endpoints/restricted']),
  rule(['create'], ['discovery.k8s.io'], ['endpointslices']),
  // node ipam, node lifecycle, taint eviction
  rule(['patch', 'update'], [''], ['nodes/status', 'pods/status']),
  // resourcequota
  rule(['update'], [''], ['resourcequotas/status']),
  // serviceaccount (and the leases of leader election)
  rule(['create'], [''], ['serviceaccounts']),
  // root-ca-cert-publisher (update: covered above)
  rule(['create'], [''], ['configmaps']),
  rule(READ, [LEASES], ['leases']),
];

export const CONTROLLER_MANAGER_RULES: PolicyRule[] = [...UPSTREAM, ...CONTROLLERS];
