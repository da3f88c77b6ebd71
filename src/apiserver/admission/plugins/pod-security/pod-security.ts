/**
 * The PodSecurity admission plugin (upstream's in-tree wrapper of
 * k8s.io/pod-security-admission): validating, on CREATE and UPDATE of pods,
 * namespaces and the workloads that carry a pod template. Warnings go to the
 * Warning header, annotations to the audit log under
 * pod-security.kubernetes.io/, and a refusal is the StatusError the
 * evaluation produced. Namespaces are read from memory (a watch of the
 * server's own store), pods listed from the store when an enforce label tightens.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import { isNotFound } from '../../../../machinery/status.js';
import type { AdmissionAttributes, AdmissionDependencies, AdmissionPluginFactory, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { watchObjects } from '../../watched-objects.js';
import { PodSecurityAdmission, type PodSecurityAdmissionOptions, type PodSecurityRequest } from './admission/admission.js';
import type { PodSecurityResponse } from './admission/response.js';
import { completeConfiguration, type PodSecurityConfiguration } from './admission/configuration.js';
import type { ExistingPod } from './admission/namespace-pods.js';
import { LABEL_PREFIX } from './api/policy.js';
import { DEFAULT_CHECKS } from './policy/default-checks.js';
import { CheckRegistry } from './policy/evaluator.js';

export const NAME = 'PodSecurity';

/** One object for a namespace without labels, so that its parsed policy is kept (by labels object) like any other's. */
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

export interface PodSecurityPluginOptions {
  readonly configuration?: PodSecurityConfiguration;
  readonly maxPodsToCheck?: number;
  readonly podCheckTimeoutMs?: number;
}

/** One registry for every plugin instance: the checks never change. */
let sharedRegistry: CheckRegistry | undefined;
const registry = (): CheckRegistry => (sharedRegistry ??= new CheckRegistry(DEFAULT_CHECKS));

export function newPodSecurityPlugin(deps: AdmissionDependencies, options: PodSecurityPluginOptions = {}): ValidatingAdmissionPlugin {
  const namespaces = (): ReturnType<AdmissionDependencies['stores']> => deps.stores('', 'v1', 'namespaces');
  // Namespaces in memory, fed by a watch (upstream's namespace lister); one it does not know yet is read from the store, as upstream falls back to a live GET.
  const served = namespaces();
  const index = served === undefined ? undefined : watchObjects<KubeObject>({ store: served, signal: deps.signal });
  const admissionOptions: PodSecurityAdmissionOptions = {
    configuration: completeConfiguration(options.configuration),
    evaluator: registry(),
    async namespaceLabels(name) {
      const known = index !== undefined && index.synced ? index.get('', name) : undefined;
      if (known !== undefined) return known.metadata.labels ?? {};
      const store = namespaces();
      if (store === undefined) throw new Error('the namespaces store is not served');
      try {
        const ns = await store.get(undefined, name);
        return ns.metadata.labels ?? NO_LABELS;
      } catch (e: unknown) {
        // A missing namespace is NamespaceLifecycle's refusal to make, not ours.
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    async listPods(namespace) {
      const store = deps.stores('', 'v1', 'pods');
      if (store === undefined) throw new Error('the pods store is not served');
      const list = await store.list(namespace);
      return list.items as unknown as ExistingPod[];
    },
    ...(options.maxPodsToCheck === undefined ? {} : { maxPodsToCheck: options.maxPodsToCheck }),
    ...(options.podCheckTimeoutMs === undefined ? {} : { podCheckTimeoutMs: options.podCheckTimeoutMs }),
  };
  const admission = new PodSecurityAdmission(admissionOptions);
  const record = (a: AdmissionAttributes, response: PodSecurityResponse): void => {
    for (const warning of response.warnings) a.addWarning(warning);
    for (const [key, value] of Object.entries(response.auditAnnotations)) a.addAuditAnnotation(`${LABEL_PREFIX}${key}`, value);
    if (!response.allowed && response.error !== undefined) throw response.error;
  };
  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE' || operation === 'UPDATE',
    validate(a) {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return undefined;
      if (!PodSecurityAdmission.applies(a.resource.group, a.resource.resource)) return undefined;
      const request: PodSecurityRequest = {
        operation: a.operation,
        kind: a.kind,
        resource: a.resource,
        subresource: a.subresource,
        namespace: a.namespace,
        name: a.name !== '' ? a.name : (a.object?.metadata.name ?? ''),
        object: a.object as KubeObject | undefined,
        oldObject: a.oldObject,
        userName: a.userInfo.name,
      };
      // A pod in a namespace memory knows: decided without waiting.
      if (a.resource.group === '' && a.resource.resource === 'pods' && index !== undefined && index.synced) {
        const known = index.get('', a.namespace);
        if (known !== undefined) return record(a, admission.validatePodWithLabels(request, known.metadata.labels ?? NO_LABELS));
      }
      return admission.validate(request).then((response) => record(a, response));
    },
  };
}

export const newPodSecurity: AdmissionPluginFactory = (deps) => newPodSecurityPlugin(deps);
