/**
 * Authorization: may this user do what the request asks? The authorizer
 * (the union of --authorization-mode) answers from the request's attributes;
 * anything but Allow stops the request with upstream's 403 (or a 500 when the
 * authorizer failed to decide), before any handler reads the body or storage.
 */
import { attributesFrom } from '../../auth/authorizers/attributes.js';
import { forbiddenError } from '../../auth/authorizers/forbidden.js';
import type { AuthorizationResult, Authorizer } from '../../auth/authorizers/interface.js';
import { internalError, StatusError } from '../../../machinery/status.js';
import type { Filter } from '../context.js';
import { ANONYMOUS } from '../../auth/authenticators/anonymous.js';

export function withAuthorization(authorizer: Authorizer | undefined): Filter {
  if (authorizer === undefined) return (next) => next;
  return (next) => (ctx) => {
    try {
      const attributes = attributesFrom(ctx.info, ctx.user ?? ANONYMOUS, ctx.query);
      // A synchronous answer (RBAC, Node) goes on without waiting a turn.
      const decided = (result: AuthorizationResult): Promise<void> => {
        if (result.decision === 'Allow') return next(ctx);
        if (result.evaluationError !== undefined && result.evaluationError !== '') {
          throw internalError(new StatusError({ code: 500, reason: 'InternalError', message: result.evaluationError }));
        }
        throw forbiddenError(attributes, result.reason);
      };
      const result = authorizer.authorize(attributes);
      return result instanceof Promise ? result.then(decided) : decided(result);
    } catch (e: unknown) {
      return Promise.reject(e);
    }
  };
}
