/**
 * The built-in resources k8ts serves, with the discovery facts upstream gives
 * them (short names, categories, verbs, subresources), so that
 * `kubectl api-resources` lists them as it would for upstream 1.33.
 */
import { ALL_VERBS, Scheme, type GroupVersionKind, type ResourceInfo, type SubresourceInfo, type Verb } from './scheme.js';

interface Spec {
  kind: string;
  resource: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: readonly Verb[];
  subresources?: SubresourceInfo[];
  /** The storage version when it is another one (see ResourceInfo.storageVersion). */
  storageVersion?: GroupVersionKind;
  deprecationWarning?: string;
}

const NO_DELETECOLLECTION: readonly Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS: readonly Verb[] = ['get', 'patch', 'update'];

const status = (group: string, version: string, kind: string): SubresourceInfo => ({
  name: 'status',
  kind: { group, version, kind },
  verbs: STATUS_VERBS,
});
/** A connect subresource's verbs in discovery: its methods' (GET, POST, PUT, PATCH, DELETE; HEAD and OPTIONS add none). */
const CONNECT_VERBS: readonly Verb[] = ['create', 'delete', 'get', 'patch', 'update'];
const proxy = (kind: string): SubresourceInfo => ({ name: 'proxy', kind: { group: '', version: 'v1', kind }, verbs: CONNECT_VERBS });
const scale: SubresourceInfo = { name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: STATUS_VERBS };

function groupVersion(group: string, version: string, specs: Spec[]): ResourceInfo[] {
  return specs.map((s) => ({
    group,
    version,
    kind: s.kind,
    resource: s.resource,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    verbs: s.verbs ?? ALL_VERBS,
    subresources: (s.subresources ?? []).map((sub) =>
      sub.name === 'status' ? { ...sub, kind: { group, version, kind: s.kind } } : sub,
    ),
    listKind: `${s.kind}List`,
    ...(s.storageVersion !== undefined ? { storageVersion: s.storageVersion } : {}),
    ...(s.deprecationWarning !== undefined ? { deprecationWarning: s.deprecationWarning } : {}),
  }));
}

export const BUILTIN_RESOURCES: readonly ResourceInfo[] = [
  ...groupVersion('', 'v1', [
    { kind: 'Binding', resource: 'bindings', namespaced: true, verbs: ['create'] },
    // Computed on each read from the components' health checks (apiserver/registry/core/componentstatus/).
    {
      kind: 'ComponentStatus',
      resource: 'componentstatuses',
      namespaced: false,
      shortNames: ['cs'],
      verbs: ['get', 'list'],
      deprecationWarning: 'v1 ComponentStatus is deprecated in v1.19+',
    },
    { kind: 'ConfigMap', resource: 'configmaps', namespaced: true, shortNames: ['cm'] },
    {
      kind: 'Endpoints',
      resource: 'endpoints',
      namespaced: true,
      shortNames: ['ep'],
      // Upstream 1.33 deprecates v1 Endpoints (KEP-4974) and warns on every request for them.
      deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
    },
    { kind: 'Event', resource: 'events', namespaced: true, shortNames: ['ev'] },
    { kind: 'LimitRange', resource: 'limitranges', namespaced: true, shortNames: ['limits'] },
    {
      kind: 'Namespace',
      resource: 'namespaces',
      namespaced: false,
      shortNames: ['ns'],
      verbs: NO_DELETECOLLECTION,
      subresources: [
        status('', 'v1', 'Namespace'),
        { name: 'finalize', kind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] },
      ],
    },
    { kind: 'Node', resource: 'nodes', namespaced: false, shortNames: ['no'], subresources: [proxy('NodeProxyOptions'), status('', 'v1', 'Node')] },
    {
      kind: 'Pod',
      resource: 'pods',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      subresources: [
        status('', 'v1', 'Pod'),
        { name: 'binding', kind: { group: '', version: 'v1', kind: 'Binding' }, verbs: ['create'] },
        { name: 'eviction', kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
        // The pod through which only spec.ephemeralContainers changes (kubectl debug; registry/core/pod/ephemeral-containers.ts).
        { name: 'ephemeralcontainers', kind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] },
        // Served by the node's kubelet through the API server (registry/core/pod/streaming.ts).
        { name: 'attach', kind: { group: '', version: 'v1', kind: 'PodAttachOptions' }, verbs: ['create', 'get'] },
        { name: 'exec', kind: { group: '', version: 'v1', kind: 'PodExecOptions' }, verbs: ['create', 'get'] },
        { name: 'log', kind: { group: '', version: 'v1', kind: 'Pod' }, verbs: ['get'] },
        { name: 'portforward', kind: { group: '', version: 'v1', kind: 'PodPortForwardOptions' }, verbs: ['create', 'get'] },
        // Proxied by the API server to the pod's IP (registry/core/pod/proxy.ts).
        proxy('PodProxyOptions'),
      ],
    },
    { kind: 'PodTemplate', resource: 'podtemplates', namespaced: true },
    {
      kind: 'ResourceQuota',
      resource: 'resourcequotas',
      namespaced: true,
      shortNames: ['quota'],
      subresources: [status('', 'v1', 'ResourceQuota')],
    },
    { kind: 'Secret', resource: 'secrets', namespaced: true },
    {
      kind: 'ServiceAccount',
      resource: 'serviceaccounts',
      namespaced: true,
      shortNames: ['sa'],
      subresources: [{ name: 'token', kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }],
    },
    {
      kind: 'Service',
      resource: 'services',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      subresources: [proxy('ServiceProxyOptions'), status('', 'v1', 'Service')],
    },
  ]),
  ...groupVersion('admissionregistration.k8s.io', 'v1', [
    { kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations', namespaced: false, categories: ['api-extensions'] },
    { kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations', namespaced: false, categories: ['api-extensions'] },
    {
      kind: 'ValidatingAdmissionPolicy',
      resource: 'validatingadmissionpolicies',
      namespaced: false,
      categories: ['api-extensions'],
      subresources: [status('admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy')],
    },
    { kind: 'ValidatingAdmissionPolicyBinding', resource: 'validatingadmissionpolicybindings', namespaced: false, categories: ['api-extensions'] },
  ]),
  ...groupVersion('apps', 'v1', [
    { kind: 'ControllerRevision', resource: 'controllerrevisions', namespaced: true },
    { kind: 'DaemonSet', resource: 'daemonsets', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: [status('apps', 'v1', 'DaemonSet')] },
    { kind: 'Deployment', resource: 'deployments', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: [status('apps', 'v1', 'Deployment'), scale] },
    { kind: 'ReplicaSet', resource: 'replicasets', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: [status('apps', 'v1', 'ReplicaSet'), scale] },
    { kind: 'StatefulSet', resource: 'statefulsets', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: [status('apps', 'v1', 'StatefulSet'), scale] },
  ]),
  // Create-only, never stored (apiserver/registry/authentication/).
  ...groupVersion('authentication.k8s.io', 'v1', [
    { kind: 'SelfSubjectReview', resource: 'selfsubjectreviews', namespaced: false, verbs: ['create'] },
    { kind: 'TokenReview', resource: 'tokenreviews', namespaced: false, verbs: ['create'] },
  ]),
  // Create-only reviews, answered by the API server's authorizer and stored nowhere (apiserver/registry/authorization).
  ...groupVersion('authorization.k8s.io', 'v1', [
    { kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', namespaced: true, verbs: ['create'] },
    { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', namespaced: false, verbs: ['create'] },
    { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', namespaced: false, verbs: ['create'] },
    { kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', namespaced: false, verbs: ['create'] },
  ]),
  ...groupVersion('batch', 'v1', [
    { kind: 'CronJob', resource: 'cronjobs', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: [status('batch', 'v1', 'CronJob')] },
    { kind: 'Job', resource: 'jobs', namespaced: true, categories: ['all'], subresources: [status('batch', 'v1', 'Job')] },
  ]),
  // Certificate requests (apiserver/registry/certificates/): how a joining node gets its client certificate (TLS bootstrap).
  ...groupVersion('certificates.k8s.io', 'v1', [
    {
      kind: 'CertificateSigningRequest',
      resource: 'certificatesigningrequests',
      namespaced: false,
      shortNames: ['csr'],
      subresources: [
        { name: 'approval', kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' }, verbs: STATUS_VERBS },
        status('certificates.k8s.io', 'v1', 'CertificateSigningRequest'),
      ],
    },
  ]),
  ...groupVersion('coordination.k8s.io', 'v1', [{ kind: 'Lease', resource: 'leases', namespaced: true }]),
  ...groupVersion('discovery.k8s.io', 'v1', [{ kind: 'EndpointSlice', resource: 'endpointslices', namespaced: true }]),
  // One stored object with core/v1 Events (api/events/event-conversion.ts).
  ...groupVersion('events.k8s.io', 'v1', [
    { kind: 'Event', resource: 'events', namespaced: true, shortNames: ['ev'], storageVersion: { group: '', version: 'v1', kind: 'Event' } },
  ]),
  // Stored and served only: like an upstream cluster with no ingress controller and no network policy
  // plugin installed, nothing here routes Ingress traffic or enforces NetworkPolicies. Upstream puts
  // neither kind in the `all` category.
  ...groupVersion('networking.k8s.io', 'v1', [
    { kind: 'IngressClass', resource: 'ingressclasses', namespaced: false },
    { kind: 'Ingress', resource: 'ingresses', namespaced: true, shortNames: ['ing'], subresources: [status('networking.k8s.io', 'v1', 'Ingress')] },
    { kind: 'NetworkPolicy', resource: 'networkpolicies', namespaced: true, shortNames: ['netpol'] },
  ]),
  ...groupVersion('policy', 'v1', [
    {
      kind: 'PodDisruptionBudget',
      resource: 'poddisruptionbudgets',
      namespaced: true,
      shortNames: ['pdb'],
      subresources: [status('policy', 'v1', 'PodDisruptionBudget')],
    },
  ]),
  ...groupVersion('rbac.authorization.k8s.io', 'v1', [
    { kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', namespaced: false },
    { kind: 'ClusterRole', resource: 'clusterroles', namespaced: false },
    { kind: 'RoleBinding', resource: 'rolebindings', namespaced: true },
    { kind: 'Role', resource: 'roles', namespaced: true },
  ]),
  ...groupVersion('scheduling.k8s.io', 'v1', [{ kind: 'PriorityClass', resource: 'priorityclasses', namespaced: false, shortNames: ['pc'] }]),
];

/** The scheme of everything k8ts serves. */
export function newBuiltinScheme(): Scheme {
  return new Scheme(BUILTIN_RESOURCES);
}
