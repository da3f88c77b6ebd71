/**
 * MutatingAdmissionWebhook: sends each create or update to the mutating
 * webhooks whose rules and selectors match, one after another in order of
 * configuration name then webhook order, applying each JSONPatch answer to the
 * object before the next webhook sees it. reinvocationPolicy IfNeeded: a
 * webhook that ran before a later webhook changed the object runs once more
 * (upstream's reinvocation round, here inside the plugin since no later plugin
 * of the chain mutates). A webhook not called in the first round is never
 * called in the second.
 */
import { StatusError } from '../../../../machinery/status.js';
import type { AdmissionAttributes, AdmissionDependencies, MutatingAdmissionPlugin } from '../../interfaces.js';
import { isExemptResource } from '../webhook/caller.js';
import type { WebhookAccessor } from '../webhook/configuration-source.js';
import { callingErrorToStatus, dryRunUnsupported, ErrCallingWebhook, rejectionToStatus } from '../webhook/errors.js';
import { newWebhookPluginBase, recordResponseExtras, type WebhookPluginOptions } from '../webhook/plugin-base.js';
import { applyJSONPatchInPlace } from './apply-patch.js';

export const NAME = 'MutatingAdmissionWebhook';

interface Round {
  readonly number: number;
  /** In the reinvocation round, only these webhooks run. */
  readonly only?: ReadonlySet<string>;
}

export function newMutatingAdmissionWebhookWith(options: WebhookPluginOptions): (deps: AdmissionDependencies) => MutatingAdmissionPlugin {
  return (deps) => {
    const base = newWebhookPluginBase(deps, 'mutatingwebhookconfigurations', options);

    /** One webhook: whether it was called and whether it changed the object. */
    const callOne = async (accessor: WebhookAccessor, position: number, round: Round, attributes: AdmissionAttributes): Promise<{ called: boolean; changed: boolean }> => {
      const hook = accessor.webhook;
      if (round.only !== undefined && !round.only.has(accessor.key)) return { called: false, changed: false };
      if (!(await base.caller.shouldCall(hook, attributes))) return { called: false, changed: false };
      if (attributes.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
      let changed = false;
      try {
        const response = await base.caller.call(hook, attributes, true);
        recordResponseExtras(hook.name, response, attributes);
        if (!response.allowed) throw rejectionToStatus(hook.name, response.status);
        if (response.patch !== undefined && attributes.object !== undefined) {
          try {
            changed = applyJSONPatchInPlace(attributes.object, response.patch);
          } catch (e: unknown) {
            throw new StatusError({ code: 500, reason: 'InternalError', message: `Internal error occurred: ${e instanceof Error ? e.message : String(e)}` }, { cause: e });
          }
        }
      } catch (e: unknown) {
        if (!(e instanceof ErrCallingWebhook)) throw e;
        if (hook.failurePolicy === 'Ignore') {
          attributes.addAuditAnnotation(`failed-open.mutation.webhook.admission.k8s.io/round_${round.number}_index_${position}`, hook.name);
          return { called: true, changed: false };
        }
        throw callingErrorToStatus(e);
      }
      attributes.addAuditAnnotation(
        `mutation.webhook.admission.k8s.io/round_${round.number}_index_${position}`,
        JSON.stringify({ configuration: accessor.configurationName, webhook: hook.name, mutated: changed }),
      );
      return { called: true, changed };
    };

    return {
      name: NAME,
      handles: () => true,
      // No webhook configured (the usual case): answered without a promise.
      admit(attributes) {
        if (isExemptResource(attributes)) return;
        if (base.readyHooks()?.length === 0) return;
        return callHooks(attributes);
      },
    };

    async function callHooks(attributes: AdmissionAttributes): Promise<void> {
      const hooks = await base.hooks(attributes);
      if (hooks.length === 0) return;
      // IfNeeded webhooks called since the last change, and those to call again.
      let invokedSinceChange = new Set<string>();
      const reinvoke = new Set<string>();
      for (const [i, accessor] of hooks.entries()) {
        const called = await callOne(accessor, i, { number: 0 }, attributes);
        if (called.changed) {
          for (const key of invokedSinceChange) reinvoke.add(key);
          invokedSinceChange = new Set();
        }
        if (called.called && accessor.webhook.reinvocationPolicy === 'IfNeeded') invokedSinceChange.add(accessor.key);
      }
      if (reinvoke.size === 0) return;
      for (const [i, accessor] of hooks.entries()) await callOne(accessor, i, { number: 1, only: reinvoke }, attributes);
    }
  };
}

export const newMutatingAdmissionWebhook = newMutatingAdmissionWebhookWith({});
