/**
 * Authorization: may this user do what the request asks? The authorizer
 * (the union of --authorization-mode) answers from the request's attributes;
 * anything but Allow stops the request with upstream's 403 (or a 500 when the
 * authorizer failed to decide), before any handler reads the body or storage.
 */
import { attributesFrom } from '../../auth/authorizers/attributes.js';
import { forbiddenError } from '../../auth/authorizers/forbidden.js';
import type { Authorizer } from '../../auth/authorizers/interface.js';
import { internalError, StatusError } from '../../../machinery/status.js';
import type { Filter } from '../context.js';
import { ANONYMOUS } from '../../auth/authenticators/anonymous.js';

export function withAuthorization(authorizer: Authorizer | undefined): Filter {
  if (authorizer === undefined) return (next) => next;
  return (next) => async (ctx) => {
    const attributes = attributesFrom(ctx.info, ctx.user ?? ANONYMOUS, ctx.query);
    const result = await authorizer.authorize(attributes);
    if (result.decision === 'Allow') return next(ctx);
    if (result.evaluationError !== undefined && result.evaluationError !== '') {
      throw internalError(new StatusError({ code: 500, reason: 'InternalError', message: result.evaluationError }));
    }
    throw forbiddenError(attributes, result.reason);
  };
}
