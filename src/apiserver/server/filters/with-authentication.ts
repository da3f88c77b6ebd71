/**
 * Authentication: who sent the request (auth/authenticators/). The user is
 * set on the context for every later filter and handler. A request whose
 * credential is refused gets upstream's 401 (Status Unauthorized, message
 * "Unauthorized": why is never told to the client).
 *
 * Until an authorizer decides what anonymous requests may do, `publicPathsOnly`
 * keeps them to the health and version endpoints (401 elsewhere), so that no
 * configuration opens more than before.
 */
import { unauthorized } from '../../../machinery/status.js';
import { ANONYMOUS_USER, isPublicInfoPath } from '../../auth/authenticators/anonymous.js';
import type { AuthenticationResult } from '../../auth/authenticators/interface.js';
import { newRequestAuthenticator } from '../../auth/authenticators/request-authenticator.js';
import type { Filter, RequestContext } from '../context.js';

export interface AuthenticationFilterOptions {
  /** The request authenticator (default: client certificates, anonymous on). */
  readonly authenticator?: { authenticate(ctx: RequestContext): Promise<AuthenticationResult> | AuthenticationResult };
  /** Anonymous requests reach only /healthz, /livez, /readyz and /version: the rule while no authorizer decides (default true). */
  readonly anonymousPublicPathsOnly?: boolean;
}

export function withAuthentication(options: AuthenticationFilterOptions = {}): Filter {
  const authenticator = options.authenticator ?? newRequestAuthenticator();
  const publicOnly = options.anonymousPublicPathsOnly ?? true;
  return (next) => {
    const authenticated = (ctx: RequestContext, result: AuthenticationResult): Promise<void> => {
      if (result.user.name === ANONYMOUS_USER && publicOnly && !isPublicInfoPath(ctx.path)) throw unauthorized();
      ctx.user = result.user;
      return next(ctx);
    };
    return (ctx) => {
      let result: Promise<AuthenticationResult> | AuthenticationResult;
      try {
        result = authenticator.authenticate(ctx);
      } catch {
        return Promise.reject(unauthorized());
      }
      // Client certificates and static tokens answer synchronously: the request goes on without waiting a turn.
      if (result instanceof Promise) {
        return result.then(
          (r) => authenticated(ctx, r),
          () => {
            throw unauthorized();
          },
        );
      }
      try {
        return authenticated(ctx, result);
      } catch (e: unknown) {
        return Promise.reject(e);
      }
    };
  };
}
