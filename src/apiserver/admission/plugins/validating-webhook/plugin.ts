/**
 * ValidatingAdmissionWebhook: sends each request to the validating webhooks
 * whose rules and selectors match, all at once (as upstream), and refuses it
 * when one of them says no or, with failurePolicy Fail, cannot be called. The
 * first refusal in webhook order is the answer.
 */
import { StatusError } from '../../../../machinery/status.js';
import type { AdmissionAttributes, AdmissionDependencies, ValidatingAdmissionPlugin } from '../../interfaces.js';
import { isExemptResource } from '../webhook/caller.js';
import { callingErrorToStatus, dryRunUnsupported, ErrCallingWebhook, rejectionToStatus } from '../webhook/errors.js';
import { newWebhookPluginBase, recordResponseExtras, type WebhookPluginOptions } from '../webhook/plugin-base.js';
import type { WebhookAccessor } from '../webhook/configuration-source.js';

export const NAME = 'ValidatingAdmissionWebhook';

export function newValidatingAdmissionWebhookWith(options: WebhookPluginOptions): (deps: AdmissionDependencies) => ValidatingAdmissionPlugin {
  return (deps) => {
    const base = newWebhookPluginBase(deps, 'validatingwebhookconfigurations', options);
    const callOne = async (accessor: WebhookAccessor, position: number, attributes: AdmissionAttributes): Promise<StatusError | undefined> => {
      const hook = accessor.webhook;
      try {
        if (!(await base.caller.shouldCall(hook, attributes))) return undefined;
      } catch (e: unknown) {
        return e instanceof StatusError ? e : new StatusError({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${e instanceof Error ? e.message : String(e)}` });
      }
      if (attributes.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') return dryRunUnsupported(hook.name);
      try {
        const response = await base.caller.call(hook, attributes, false);
        recordResponseExtras(hook.name, response, attributes);
        return response.allowed ? undefined : rejectionToStatus(hook.name, response.status);
      } catch (e: unknown) {
        if (!(e instanceof ErrCallingWebhook)) throw e;
        if (hook.failurePolicy === 'Ignore') {
          attributes.addAuditAnnotation(`failed-open.validating.webhook.admission.k8s.io/round_0_index_${position}`, hook.name);
          return undefined;
        }
        return callingErrorToStatus(e);
      }
    };
    return {
      name: NAME,
      handles: () => true,
      // No webhook configured (the usual case): answered without a promise.
      validate(attributes) {
        if (isExemptResource(attributes)) return;
        if (base.readyHooks()?.length === 0) return;
        return callHooks(attributes);
      },
    };

    async function callHooks(attributes: AdmissionAttributes): Promise<void> {
      const hooks = await base.hooks(attributes);
      if (hooks.length === 0) return;
      const results = await Promise.all(hooks.map((accessor, i) => callOne(accessor, i, attributes)));
      const refusal = results.find((r) => r !== undefined);
      if (refusal !== undefined) throw refusal;
    }
  };
}

export const newValidatingAdmissionWebhook = newValidatingAdmissionWebhookWith({});
