/** Requests and an admission core with in-memory namespaces and pods, for the admission unit tests. */
import type { KubeObject } from '../../../../../machinery/meta.js';
import { PodSecurityAdmission, type PodSecurityAdmissionOptions, type PodSecurityRequest } from '../admission/admission.js';
import { completeConfiguration, type PodSecurityConfiguration } from '../admission/configuration.js';
import type { ExistingPod } from '../admission/namespace-pods.js';
import { DEFAULT_CHECKS } from '../policy/default-checks.js';
import { CheckRegistry } from '../policy/evaluator.js';

export const REGISTRY = new CheckRegistry(DEFAULT_CHECKS);

export interface FakeCluster {
  namespaces: Record<string, Record<string, string>>;
  pods: Record<string, ExistingPod[]>;
  failNamespaceLookup?: boolean;
  failPodList?: boolean;
}

export function admissionFor(cluster: FakeCluster, configuration: PodSecurityConfiguration = {}, extra: Partial<PodSecurityAdmissionOptions> = {}): PodSecurityAdmission {
  return new PodSecurityAdmission({
    configuration: completeConfiguration(configuration),
    evaluator: REGISTRY,
    namespaceLabels: async (name) => {
      if (cluster.failNamespaceLookup === true) throw new Error('etcd is down');
      return cluster.namespaces[name];
    },
    listPods: async (ns) => {
      if (cluster.failPodList === true) throw new Error('etcd is down');
      return cluster.pods[ns] ?? [];
    },
    ...extra,
  });
}

export const restrictedLabels = (level: string, mode = 'enforce'): Record<string, string> => ({ [`pod-security.kubernetes.io/${mode}`]: level });

export function podObject(name: string, containers: unknown[], spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x' }, spec: { containers, ...spec } };
}

export function podRequest(object: KubeObject, o: Partial<PodSecurityRequest> = {}): PodSecurityRequest {
  return {
    operation: 'CREATE',
    kind: { group: '', kind: 'Pod' },
    resource: { group: '', resource: 'pods' },
    subresource: '',
    namespace: 'x',
    name: object.metadata.name ?? '',
    object,
    oldObject: undefined,
    userName: 'alice',
    ...o,
  };
}

export function deploymentRequest(name: string, containers: unknown[], namespace = 'x'): PodSecurityRequest {
  const object: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
  };
  return { operation: 'CREATE', kind: { group: 'apps', kind: 'Deployment' }, resource: { group: 'apps', resource: 'deployments' }, subresource: '', namespace, name, object, oldObject: undefined, userName: 'alice' };
}

export function namespaceRequest(name: string, labels: Record<string, string>, oldLabels?: Record<string, string>): PodSecurityRequest {
  const ns = (l: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: l } });
  return {
    operation: oldLabels === undefined ? 'CREATE' : 'UPDATE',
    kind: { group: '', kind: 'Namespace' },
    resource: { group: '', resource: 'namespaces' },
    subresource: '',
    namespace: '',
    name,
    object: ns(labels),
    oldObject: oldLabels === undefined ? undefined : ns(oldLabels),
    userName: 'alice',
  };
}

export const PRIVILEGED_CONTAINER = { name: 'c', image: 'busybox', securityContext: { privileged: true } };
export const COMPLIANT_CONTAINER = {
  name: 'c',
  image: 'busybox',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
};
