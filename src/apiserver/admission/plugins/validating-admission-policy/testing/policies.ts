/**
 * For the plugin's unit tests: a real registry over memory storage (policies
 * and bindings are created through their stores, so defaults and validation
 * apply as in the server), the plugin built on it, and small builders.
 */
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../../../api/admissionregistration/v1/policy-types.js';
import { newBuiltinScheme } from '../../../../../api/resources.js';
import type { KubeObject } from '../../../../../machinery/meta.js';
import { StatusError } from '../../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../../storage/memory/memory-storage.js';
import { registryLookup } from '../../../../endpoints/installer.js';
import { builtinDefinitions } from '../../../../registry/builtin.js';
import { ObjectStorage } from '../../../../registry/generic/object-storage.js';
import { Registry } from '../../../../registry/registry.js';
import type { ValidatingAdmissionPlugin } from '../../../interfaces.js';
import { attributesFor, type TestAttributes } from '../../testing/attributes.js';
import { newValidatingAdmissionPolicyWith } from '../plugin.js';

type PolicySpec = NonNullable<ValidatingAdmissionPolicy['spec']>;
type BindingSpec = NonNullable<ValidatingAdmissionPolicyBinding['spec']>;

export interface TestCluster {
  readonly registry: Registry;
  readonly plugin: ValidatingAdmissionPlugin;
  create(group: string, resource: string, object: KubeObject): Promise<KubeObject>;
  stop(): void;
}

/** A registry holding `objects` (created in order: namespaces, params, policies, bindings), and the plugin over it. */
export async function testCluster(...objects: KubeObject[]): Promise<TestCluster> {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
  const controller = new AbortController();
  const create = async (group: string, resource: string, object: KubeObject): Promise<KubeObject> => {
    const version = object.apiVersion?.includes('/') ? object.apiVersion.split('/')[1]! : 'v1';
    return registry.store(group, version, resource).create(object.metadata.namespace, object);
  };
  for (const object of objects) {
    const [group, resource] = whereStored(object);
    await create(group, resource, object);
  }
  const plugin = newValidatingAdmissionPolicyWith({ retryDelayMs: 10 })({ stores: registryLookup(registry), signal: controller.signal });
  return { registry, plugin, create, stop: () => controller.abort() };
}

function whereStored(object: KubeObject): [string, string] {
  switch (object.kind) {
    case 'Namespace':
      return ['', 'namespaces'];
    case 'ConfigMap':
      return ['', 'configmaps'];
    case 'ValidatingAdmissionPolicy':
      return ['admissionregistration.k8s.io', 'validatingadmissionpolicies'];
    case 'ValidatingAdmissionPolicyBinding':
      return ['admissionregistration.k8s.io', 'validatingadmissionpolicybindings'];
    default:
      throw new Error(`testCluster: no store for ${object.kind}`);
  }
}

/** A policy on deployment creates and updates, with `validations` and any other spec fields. */
export function policy(name: string, spec: Partial<PolicySpec>): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
      ...spec,
    },
  };
}

export function binding(name: string, policyName: string, spec: Partial<BindingSpec> = {}): ValidatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

export function namespace(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

export function configMap(namespaceName: string, name: string, data: Record<string, string>, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: namespaceName, labels }, data } as KubeObject;
}

export function deployment(name: string, replicas: number, labels: Record<string, string> = { app: name }, namespaceName = 'default'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: namespaceName, labels },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  } as KubeObject;
}

/** A deployment create (or another operation) as admission sees it. */
export function deploymentRequest(object: KubeObject, over: { operation?: 'CREATE' | 'UPDATE' | 'DELETE'; oldObject?: KubeObject; user?: { name: string; groups: string[] } } = {}): TestAttributes {
  return attributesFor({
    operation: over.operation ?? 'CREATE',
    group: 'apps',
    resource: 'deployments',
    kind: 'Deployment',
    namespace: object.metadata.namespace ?? 'default',
    ...(over.operation === 'DELETE' ? {} : { object }),
    ...(over.oldObject !== undefined ? { oldObject: over.oldObject } : over.operation === 'DELETE' ? { oldObject: object } : {}),
    name: object.metadata.name ?? '',
    ...(over.user !== undefined ? { user: over.user } : {}),
  });
}

export async function refusal(promise: Promise<void> | void): Promise<StatusError> {
  try {
    await promise;
  } catch (e: unknown) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('the request was admitted');
}
