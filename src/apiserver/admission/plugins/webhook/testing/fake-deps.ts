/**
 * AdmissionDependencies for unit tests of the webhook plugins: webhook
 * configurations served by a fake store whose watch gives them as the initial
 * ADDED events (then stays open until cancelled), and namespaces by name.
 * Fakes bypass validation, so tests can hold what validation refuses on new
 * objects (sideEffects Unknown on old configurations).
 */
import type { Webhook, WebhookConfiguration } from '../../../../../api/admissionregistration/v1/types.js';
import type { KubeObject } from '../../../../../machinery/meta.js';
import { notFound } from '../../../../../machinery/status.js';
import type { GenericStore } from '../../../../registry/generic/store.js';
import type { AdmissionAttributes, AdmissionDependencies } from '../../../interfaces.js';

export interface FakeDeps {
  readonly deps: AdmissionDependencies;
  stop(): void;
}

function configStore(configs: readonly WebhookConfiguration[]): GenericStore {
  return {
    async watch() {
      let cancel!: () => void;
      const cancelled = new Promise<void>((resolve) => (cancel = resolve));
      return {
        initialEvents: configs.length,
        startRevision: 1,
        cancel,
        async *[Symbol.asyncIterator]() {
          for (const object of configs) yield { type: 'ADDED' as const, object, revision: 1 };
          await cancelled;
        },
      };
    },
  } as unknown as GenericStore;
}

function namespaceStore(namespaces: Readonly<Record<string, Record<string, string>>>): GenericStore {
  return {
    async get(_ns: string | undefined, name: string): Promise<KubeObject> {
      const labels = namespaces[name];
      if (labels === undefined) throw notFound({ group: '', resource: 'namespaces' }, name);
      return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
    },
  } as unknown as GenericStore;
}

export function fakeDeps(options: { resource: string; configs: readonly WebhookConfiguration[]; namespaces?: Readonly<Record<string, Record<string, string>>> }): FakeDeps {
  const controller = new AbortController();
  const configs = configStore(options.configs);
  const namespaces = namespaceStore(options.namespaces ?? { default: {} });
  return {
    deps: {
      stores: (group, _version, resource) =>
        group === 'admissionregistration.k8s.io' && resource === options.resource ? configs : group === '' && resource === 'namespaces' ? namespaces : undefined,
      signal: controller.signal,
    },
    stop: () => controller.abort(),
  };
}

export function webhookConfiguration(name: string, ...webhooks: Webhook[]): WebhookConfiguration {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks };
}

/** A webhook on configmap creates, defaulted as the API server would store it. */
export function testWebhook(name: string, url: string, caPem: string, over: Partial<Webhook> = {}): Webhook {
  return {
    name,
    clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    reinvocationPolicy: 'Never',
    ...over,
  };
}

export interface RecordedAttributes extends AdmissionAttributes {
  readonly warnings: string[];
  readonly annotations: Record<string, string>;
}

export function configMapCreate(over: Partial<AdmissionAttributes> = {}): RecordedAttributes {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace: 'default',
    name: 'cm',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', labels: { app: 'x' } }, data: { a: 'b' } },
    oldObject: undefined,
    dryRun: false,
    userInfo: { name: 'alice', groups: ['devs', 'system:authenticated'], uid: 'u-1' },
    addWarning: (text) => void warnings.push(text),
    addAuditAnnotation: (key, value) => void (annotations[key] = value),
    warnings,
    annotations,
    ...over,
  };
}

/** An AdmissionReview response allowing (or not) the request in `body`. */
export function reviewResponse(body: unknown, response: Record<string, unknown>): unknown {
  const uid = (body as { request?: { uid?: string } } | undefined)?.request?.uid ?? '';
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...response } };
}
