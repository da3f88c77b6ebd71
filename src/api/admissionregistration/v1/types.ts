/**
 * admissionregistration.k8s.io/v1 webhook types as k8ts reads them. Written
 * here because kubernetes-types 1.30 lacks RuleWithOperations.resources and
 * .scope (its generator drops the inlined Rule).
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../../../machinery/meta.js';

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM bundle, base64 in JSON. */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Webhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: string;
}

export type ValidatingWebhook = Omit<Webhook, 'reinvocationPolicy'>;
export type MutatingWebhook = Webhook;

export interface WebhookConfiguration extends KubeObject {
  webhooks?: Webhook[];
}
export type ValidatingWebhookConfiguration = WebhookConfiguration;
export type MutatingWebhookConfiguration = WebhookConfiguration;
