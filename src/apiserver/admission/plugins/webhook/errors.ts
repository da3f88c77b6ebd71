/**
 * The errors of webhook admission, worded as upstream's
 * (apiserver/pkg/admission/plugin/webhook/errors and util/webhook):
 * - a webhook that could not be called (network, timeout, bad response) is an
 *   ErrCallingWebhook; its failurePolicy decides (Fail → 500 InternalError,
 *   Ignore → allowed);
 * - a webhook that answered allowed=false is a rejection with its status;
 * - a dry run to a webhook with side effects is a 400 whatever the policy.
 */
import { StatusError, type Status, type StatusReason } from '../../../../machinery/status.js';

export class ErrCallingWebhook extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`failed calling webhook "${webhookName}": ${reason}`, options);
  }
}

/** Failure policy Fail: `Internal error occurred: failed calling webhook "NAME": …` (500). */
export function callingErrorToStatus(e: ErrCallingWebhook): StatusError {
  return new StatusError(
    { code: 500, reason: 'InternalError', message: `Internal error occurred: ${e.message}`, details: { causes: [{ message: e.message }] } },
    { cause: e },
  );
}

/** The webhook's refusal (upstream's ToStatusErr): its code (at least 400), reason and message after `admission webhook "NAME" denied the request`. */
export function rejectionToStatus(webhookName: string, result: Partial<Status> | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const code = typeof result?.code === 'number' && result.code >= 400 ? result.code : 400;
  const message =
    typeof result?.message === 'string' && result.message !== ''
      ? `${deniedBy}: ${result.message}`
      : typeof result?.reason === 'string' && result.reason !== ''
        ? `${deniedBy}: ${result.reason}`
        : `${deniedBy} without explanation`;
  const reason: StatusReason = typeof result?.reason === 'string' ? result.reason : '';
  return new StatusError({ code, reason, message, ...(result?.details !== undefined ? { details: result.details } : {}) });
}

/** A dry run sent to a webhook whose sideEffects are Unknown or Some. */
export function dryRunUnsupported(webhookName: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message: `admission webhook "${webhookName}" does not support dry run` });
}
