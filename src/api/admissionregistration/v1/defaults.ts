/**
 * Defaults of admissionregistration.k8s.io/v1 webhook configurations, as
 * upstream's SetDefaults_*: failurePolicy Fail, matchPolicy Equivalent, empty
 * namespace and object selectors (match everything), timeoutSeconds 10, rule
 * scope `*`, service port 443 and, for mutating webhooks, reinvocationPolicy
 * Never. sideEffects and admissionReviewVersions have no default in v1.
 */
import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from './types.js';

type Webhook = ValidatingWebhook | MutatingWebhook;

function defaultWebhook(hook: Webhook): void {
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= 10;
  for (const rule of hook.rules ?? []) rule.scope ??= '*';
  const service = hook.clientConfig?.service;
  if (service !== undefined) service.port ??= 443;
}

export function defaultValidatingWebhookConfiguration(config: ValidatingWebhookConfiguration): void {
  for (const hook of config.webhooks ?? []) defaultWebhook(hook);
}

export function defaultMutatingWebhookConfiguration(config: MutatingWebhookConfiguration): void {
  for (const hook of config.webhooks ?? []) {
    defaultWebhook(hook);
    hook.reinvocationPolicy ??= 'Never';
  }
}
