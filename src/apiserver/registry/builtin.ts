/**
 * The definitions of every built-in resource, by kind. A resource with
 * behaviour of its own has a folder (core/pod/, core/namespace/, …) whose
 * storage.ts exports its definition; the rest are plain stores.
 */
import type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { VerbHandler } from '../endpoints/target.js';
import type { TableConvertor } from '../../machinery/table.js';
import { nameIsDNSSubdomain, validateRBACName, type ValidateNameFunc } from '../../machinery/validation/names.js';
import { mutatingWebhookConfigurationDefinition, validatingWebhookConfigurationDefinition } from './admissionregistration/webhookconfiguration/storage.js';
import { validatingAdmissionPolicyBindingDefinition, validatingAdmissionPolicyDefinition } from './admissionregistration/validatingadmissionpolicy/storage.js';
import { controllerRevisionDefinition } from './apps/controllerrevision/storage.js';
import { daemonSetDefinition } from './apps/daemonset/storage.js';
import { deploymentDefinition } from './apps/deployment/storage.js';
import { replicaSetDefinition } from './apps/replicaset/storage.js';
import { statefulSetDefinition } from './apps/statefulset/storage.js';
import { cronJobDefinition } from './batch/cronjob/storage.js';
import { certificateSigningRequestDefinition } from './certificates/certificatesigningrequest/storage.js';
import { jobDefinition } from './batch/job/storage.js';
import { componentStatusDefinition } from './core/componentstatus/storage.js';
import type { ComponentStatusOptions } from './core/componentstatus/components.js';
import { configMapTable } from './core/configmap/table.js';
import { endpointsTable } from './core/endpoints/table.js';
import { eventDefinition } from './core/event/storage.js';
import { limitRangeTable } from './core/limitrange/table.js';
import { namespaceDefinition } from './core/namespace/storage.js';
import { nodeProxyHandlers } from './core/node/proxy.js';
import { nodeDefinition } from './core/node/storage.js';
import { podProxyHandlers } from './core/pod/proxy.js';
import { podDefinition } from './core/pod/storage.js';
import { podStreamingHandlers } from './core/pod/streaming.js';
import type { KubeletClientConfig } from '../kubelet/kubelet-client.js';
import { podTemplateDefinition } from './core/podtemplate/storage.js';
import { resourceQuotaTable } from './core/resourcequota/table.js';
import { secretTable } from './core/secret/table.js';
import { setEndpointsDefaults } from './core/service/endpoints-defaults.js';
import { serviceProxyHandlers } from './core/service/proxy.js';
import { serviceDefinition, type ServiceAllocationOptions } from './core/service/storage.js';
import { serviceAccountDefinition } from './core/serviceaccount/storage.js';
import type { TokenRequestOptions } from './core/serviceaccount/token.js';
import { eventsV1EventDefinition } from './events/event/storage.js';
import { leaseTable } from './coordination/lease/table.js';
import { endpointSliceTable } from './discovery/endpointslice/table.js';
import { ingressTable } from './networking/ingress/table.js';
import { ingressClassTable } from './networking/ingressclass/table.js';
import { networkPolicyTable } from './networking/networkpolicy/table.js';
import { podDisruptionBudgetTable } from './policy/poddisruptionbudget/table.js';
import { clusterRoleTable } from './rbac/clusterrole/table.js';
import { clusterRoleBindingTable } from './rbac/clusterrolebinding/table.js';
import { roleTable } from './rbac/role/table.js';
import { roleBindingTable } from './rbac/rolebinding/table.js';
import { priorityClassTable } from './scheduling/priorityclass/table.js';
import { validateLease, validateLeaseUpdate } from '../../api/coordination/v1/validation.js';
import { validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from '../../api/core/v1/config-validation.js';
import { validateResourceQuota, validateResourceQuotaUpdate } from '../../api/core/v1/resource-quota-validation.js';
import { setIngressClassDefaults, setNetworkPolicyDefaults } from '../../api/networking/v1/defaults.js';
import {
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressStatusUpdate,
  validateIngressUpdate,
  ingressWarnings,
  networkPolicyWarnings,
  validateNetworkPolicy,
  validateNetworkPolicyUpdate,
} from '../../api/networking/v1/validation.js';
import { validatePodDisruptionBudget, validatePodDisruptionBudgetUpdate } from '../../api/policy/v1/validation.js';
import { validatePriorityClass, validatePriorityClassUpdate } from '../../api/scheduling/v1/validation.js';
import type { EscalationGuard } from '../auth/authorizers/rbac/escalation.js';
import { bindingDefinition, roleDefinition } from './rbac/policy-based-store.js';
import { definitionKey } from './registry.js';
import type { ResourceDefinition } from './definition.js';
import { baseStrategy, plainStrategy, statusStrategy, type Strategy } from './generic/strategy.js';
import type { FieldError } from '../../machinery/field-errors.js';

const table = (t: TableConvertor<never>): TableConvertor<KubeObject> => t as unknown as TableConvertor<KubeObject>;

function plain(validateName: ValidateNameFunc, options: Partial<Strategy> & { storagePath?: string } = {}): ResourceDefinition {
  const { storagePath, ...strategy } = options;
  return { strategy: { ...plainStrategy, ...strategy }, validateName, ...(storagePath !== undefined ? { storagePath } : {}) };
}

function withStatus(validateName: ValidateNameFunc, options: Partial<Strategy> & { storagePath?: string } = {}): ResourceDefinition {
  const { storagePath, ...strategy } = options;
  return { strategy: { ...baseStrategy, ...strategy }, validateName, ...(storagePath !== undefined ? { storagePath } : {}) };
}

/** A kind's own validation (its typed validators) as the strategy's validate and validateUpdate. */
function validatedBy<T>(validate: (object: T) => FieldError[], validateUpdate: (object: T, old: T) => FieldError[]): Pick<Strategy, 'validate' | 'validateUpdate'> {
  return { validate: (o) => validate(o as T), validateUpdate: (o, old) => validateUpdate(o as T, old as T) };
}

/** A definition with a proxy subresource (pods/proxy, services/proxy, nodes/proxy). */
const withProxy = (definition: ResourceDefinition, proxy: Readonly<Record<string, VerbHandler>>): ResourceDefinition => ({
  ...definition,
  subresourceHandlers: { ...definition.subresourceHandlers, proxy },
});

/** A string field at a path, or ''. */
export function str(object: KubeObject, ...path: string[]): string {
  let value: unknown = object;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return '';
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** Ingress: spec/status split with generation; /status validates the load balancer's addresses. */
function ingressDefinition(): ResourceDefinition {
  const definition = withStatus(nameIsDNSSubdomain, {
    storagePath: 'ingress',
    table: table(ingressTable),
    warnings: (o, old) => ingressWarnings(o as Ingress, old as Ingress | undefined),
    ...validatedBy(validateIngress, validateIngressUpdate),
  });
  return { ...definition, statusStrategy: statusStrategy(definition.strategy, (o, old) => validateIngressStatusUpdate(o as never, old as never)) };
}

export interface BuiltinOptions {
  /** Service allocation: `--service-cluster-ip-range` and `--service-node-port-range`. */
  readonly services?: ServiceAllocationOptions;
  /** The service-account token issuer of serviceaccounts/token (absent: the subresource answers 405). */
  readonly serviceAccountTokens?: TokenRequestOptions;
  /** Escalation prevention of the RBAC kinds (bound to the authorizer once it exists); without it they are plain stores. */
  readonly escalation?: EscalationGuard;
  /** How pods/log, pods/exec, pods/attach and pods/portforward reach kubelets (default: no client certificate, no CA). */
  readonly kubeletClient?: KubeletClientConfig;
  /** Where ComponentStatus probes the scheduler, the controller manager and storage (default: upstream's URLs, no storage). */
  readonly componentStatuses?: ComponentStatusOptions;
}

export function builtinDefinitions(options: BuiltinOptions = {}): Map<string, ResourceDefinition> {
  const rbac = (withChecks: (base: ResourceDefinition, guard: EscalationGuard) => ResourceDefinition, t: TableConvertor<never>): ResourceDefinition => {
    // Upstream's RBAC strategies allow a PUT to create (AllowCreateOnUpdate), as `kubectl auth reconcile` does.
    const base = plain(validateRBACName, { table: table(t), allowCreateOnUpdate: true });
    return options.escalation === undefined ? base : withChecks(base, options.escalation);
  };
  const defs: [string, string, ResourceDefinition][] = [
    ['', 'ComponentStatus', componentStatusDefinition(options.componentStatuses)],
    ['', 'ConfigMap', plain(nameIsDNSSubdomain, { table: table(configMapTable), ...validatedBy(validateConfigMap, validateConfigMapUpdate) })],
    ['', 'Endpoints', plain(nameIsDNSSubdomain, { storagePath: 'services/endpoints', table: table(endpointsTable), defaults: setEndpointsDefaults, allowCreateOnUpdate: true })],
    ['', 'Event', eventDefinition],
    ['', 'LimitRange', plain(nameIsDNSSubdomain, { table: table(limitRangeTable), allowCreateOnUpdate: true })],
    ['', 'Namespace', namespaceDefinition],
    ['', 'Node', withProxy(nodeDefinition, nodeProxyHandlers(options.kubeletClient ?? {}))],
    ['', 'Pod', withProxy({ ...podDefinition, subresourceHandlers: { ...podDefinition.subresourceHandlers, ...podStreamingHandlers(options.kubeletClient ?? {}) } }, podProxyHandlers)],
    ['', 'PodTemplate', podTemplateDefinition],
    [
      '',
      'ResourceQuota',
      withStatus(nameIsDNSSubdomain, {
        generation: false,
        table: table(resourceQuotaTable),
        ...validatedBy(validateResourceQuota, validateResourceQuotaUpdate),
      }),
    ],
    [
      '',
      'Secret',
      plain(nameIsDNSSubdomain, {
        table: table(secretTable),
        selectableFields: { type: (o) => str(o, 'type') },
        ...validatedBy(validateSecret, validateSecretUpdate),
        defaults: (o) => {
          if (o.type === undefined || o.type === '') o.type = 'Opaque';
          // stringData is write-only: its entries are folded into data, base64-encoded, as upstream's conversion does.
          const stringData = o.stringData;
          if (typeof stringData === 'object' && stringData !== null) {
            const data = (typeof o.data === 'object' && o.data !== null ? o.data : {}) as Record<string, string>;
            for (const [k, v] of Object.entries(stringData as Record<string, unknown>)) {
              if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
            }
            o.data = data;
          }
          delete o.stringData;
        },
      }),
    ],
    ['', 'ServiceAccount', serviceAccountDefinition(options.serviceAccountTokens)],
    ['', 'Service', withProxy(serviceDefinition(options.services), serviceProxyHandlers)],
    ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration', mutatingWebhookConfigurationDefinition],
    ['admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', validatingWebhookConfigurationDefinition],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicy', validatingAdmissionPolicyDefinition],
    ['admissionregistration.k8s.io', 'ValidatingAdmissionPolicyBinding', validatingAdmissionPolicyBindingDefinition],
    ['apps', 'ControllerRevision', controllerRevisionDefinition],
    ['apps', 'DaemonSet', daemonSetDefinition],
    ['apps', 'Deployment', deploymentDefinition],
    ['apps', 'ReplicaSet', replicaSetDefinition],
    ['apps', 'StatefulSet', statefulSetDefinition],
    ['batch', 'CronJob', cronJobDefinition],
    ['batch', 'Job', jobDefinition],
    ['certificates.k8s.io', 'CertificateSigningRequest', certificateSigningRequestDefinition],
    // A Lease may be created by a PUT, and an update must name the resourceVersion it replaces (upstream's lease strategy).
    [
      'coordination.k8s.io',
      'Lease',
      plain(nameIsDNSSubdomain, { table: table(leaseTable), allowCreateOnUpdate: true, allowUnconditionalUpdate: false, ...validatedBy(validateLease, validateLeaseUpdate) }),
    ],
    ['discovery.k8s.io', 'EndpointSlice', plain(nameIsDNSSubdomain, { table: table(endpointSliceTable) })],
    ['events.k8s.io', 'Event', eventsV1EventDefinition],
    // Stored and served only, as on an upstream cluster with no ingress controller and no network policy
    // plugin: nothing here routes Ingress traffic or enforces a NetworkPolicy. Keys follow upstream's etcd
    // layout, where Ingresses live under /registry/ingress/ (singular).
    ['networking.k8s.io', 'Ingress', ingressDefinition()],
    [
      'networking.k8s.io',
      'IngressClass',
      // Upstream's IngressClass and NetworkPolicy strategies keep metadata.generation although neither kind has a status.
      plain(nameIsDNSSubdomain, {
        generation: true,
        table: table(ingressClassTable),
        defaults: (o) => setIngressClassDefaults(o as IngressClass),
        ...validatedBy(validateIngressClass, validateIngressClassUpdate),
      }),
    ],
    [
      'networking.k8s.io',
      'NetworkPolicy',
      plain(nameIsDNSSubdomain, {
        generation: true,
        table: table(networkPolicyTable),
        warnings: (o, old) => networkPolicyWarnings(o as NetworkPolicy, old as NetworkPolicy | undefined),
        defaults: (o) => setNetworkPolicyDefaults(o as NetworkPolicy),
        ...validatedBy(validateNetworkPolicy, validateNetworkPolicyUpdate),
      }),
    ],
    [
      'policy',
      'PodDisruptionBudget',
      withStatus(nameIsDNSSubdomain, {
        table: table(podDisruptionBudgetTable),
        ...validatedBy(validatePodDisruptionBudget, validatePodDisruptionBudgetUpdate),
      }),
    ],
    ['rbac.authorization.k8s.io', 'ClusterRoleBinding', rbac(bindingDefinition, clusterRoleBindingTable)],
    ['rbac.authorization.k8s.io', 'ClusterRole', rbac(roleDefinition, clusterRoleTable)],
    ['rbac.authorization.k8s.io', 'RoleBinding', rbac(bindingDefinition, roleBindingTable)],
    ['rbac.authorization.k8s.io', 'Role', rbac(roleDefinition, roleTable)],
    [
      'scheduling.k8s.io',
      'PriorityClass',
      plain(nameIsDNSSubdomain, {
        table: table(priorityClassTable),
        ...validatedBy(validatePriorityClass, validatePriorityClassUpdate),
      }),
    ],
  ];
  return new Map(defs.map(([group, kind, def]) => [definitionKey(group, kind), def]));
}
