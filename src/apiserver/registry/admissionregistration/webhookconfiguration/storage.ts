/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration: plain
 * cluster-scoped objects with upstream's defaults and validation
 * (api/admissionregistration/v1). The webhook admission plugins read them
 * through the server's own stores.
 */
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../../../../api/admissionregistration/v1/types.js';
import { defaultMutatingWebhookConfiguration, defaultValidatingWebhookConfiguration } from '../../../../api/admissionregistration/v1/defaults.js';
import { validateMutatingWebhookConfiguration, validateValidatingWebhookConfiguration } from '../../../../api/admissionregistration/v1/validation.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { nameIsDNSSubdomain } from '../../../../machinery/validation/names.js';
import type { ResourceDefinition } from '../../definition.js';
import { plainStrategy } from '../../generic/strategy.js';
import { webhookConfigurationTable } from './table.js';

const asValidating = (o: KubeObject): ValidatingWebhookConfiguration => o as ValidatingWebhookConfiguration;
const asMutating = (o: KubeObject): MutatingWebhookConfiguration => o as MutatingWebhookConfiguration;

export const validatingWebhookConfigurationDefinition: ResourceDefinition = {
  strategy: {
    ...plainStrategy,
    // Upstream keeps a generation on webhook configurations (bumped when webhooks change).
    generation: true,
    defaults: (o) => defaultValidatingWebhookConfiguration(asValidating(o)),
    validate: (o) => validateValidatingWebhookConfiguration(asValidating(o)),
    validateUpdate: (o, old) => validateValidatingWebhookConfiguration(asValidating(o), asValidating(old)),
    table: webhookConfigurationTable,
  },
  validateName: nameIsDNSSubdomain,
};

export const mutatingWebhookConfigurationDefinition: ResourceDefinition = {
  strategy: {
    ...plainStrategy,
    generation: true,
    defaults: (o) => defaultMutatingWebhookConfiguration(asMutating(o)),
    validate: (o) => validateMutatingWebhookConfiguration(asMutating(o)),
    validateUpdate: (o, old) => validateMutatingWebhookConfiguration(asMutating(o), asMutating(old)),
    table: webhookConfigurationTable,
  },
  validateName: nameIsDNSSubdomain,
};
