/**
 * The parts of a webhook admission plugin that mutating and validating share:
 * the configuration source over the server's own store, the caller, readiness,
 * and what a webhook's answer adds to the request (warnings, audit annotations).
 */
import { StatusError } from '../../../../machinery/status.js';
import type { AdmissionAttributes, AdmissionDependencies } from '../../interfaces.js';
import type { AdmissionResponse } from './admission-review.js';
import { WebhookCaller } from './caller.js';
import { newWebhookSource, type WebhookAccessor, type WebhookSource } from './configuration-source.js';

export interface WebhookPluginOptions {
  /** How long a request waits for the first list of configurations before it is refused. */
  readonly readyTimeoutMs?: number;
}

export interface WebhookPluginBase {
  readonly caller: WebhookCaller;
  hooks(attributes: AdmissionAttributes): Promise<readonly WebhookAccessor[]>;
  /** The hooks at once once the first list is in; undefined before (then hooks() waits for it). */
  readyHooks(): readonly WebhookAccessor[] | undefined;
}

export function newWebhookPluginBase(deps: AdmissionDependencies, resource: string, options: WebhookPluginOptions = {}): WebhookPluginBase {
  const store = deps.stores('admissionregistration.k8s.io', 'v1', resource);
  if (store === undefined) throw new Error(`admissionregistration.k8s.io/v1 ${resource} is not served`);
  const source: WebhookSource = newWebhookSource({ store, signal: deps.signal });
  const caller = new WebhookCaller({ stores: deps.stores });
  deps.signal.addEventListener('abort', () => caller.close(), { once: true });
  let ready = false;
  return {
    caller,
    async hooks(attributes) {
      if (!ready) {
        await waitReady(source, options.readyTimeoutMs ?? 10_000, attributes);
        ready = true;
      }
      return source.webhooks();
    },
    readyHooks: () => (ready ? source.webhooks() : undefined),
  };
}

async function waitReady(source: WebhookSource, timeoutMs: number, attributes: AdmissionAttributes): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const ok = await Promise.race([source.ready().then(() => true), timedOut]);
  clearTimeout(timer);
  if (!ok) {
    const gr = attributes.resource.group === '' ? attributes.resource.resource : `${attributes.resource.resource}.${attributes.resource.group}`;
    throw new StatusError({ code: 403, reason: 'Forbidden', message: `${gr} "${attributes.name}" is forbidden: not yet ready to handle request` });
  }
}

/** Warnings go to the client; audit annotations are keyed `WEBHOOK/KEY`, as upstream. */
export function recordResponseExtras(webhookName: string, response: AdmissionResponse, attributes: AdmissionAttributes): void {
  for (const warning of response.warnings ?? []) {
    if (warning !== '' && warning.length <= 4096 && !/[\x00-\x1f\x7f]/.test(warning)) attributes.addWarning(warning);
  }
  for (const [key, value] of Object.entries(response.auditAnnotations ?? {})) attributes.addAuditAnnotation(`${webhookName}/${key}`, value);
}
