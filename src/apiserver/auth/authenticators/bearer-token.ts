/**
 * The bearer token of a request (`Authorization: Bearer TOKEN`), handed to the
 * token authenticators, as upstream's bearertoken authenticator:
 *
 * - no Authorization header, another scheme, or an empty token: no opinion;
 * - a token no token authenticator accepts: 401 ("invalid bearer token"),
 *   even when anonymous requests are allowed;
 * - an accepted token: the user, and the Authorization header is removed so
 *   that nothing after authentication (a proxy, a log) sees it.
 */
import { unauthorized } from '../../../machinery/status.js';
import type { RequestContext } from '../../server/context.js';
import type { AuthenticationResult, Authenticator, TokenAuthenticator } from './interface.js';

/** The token of an `Authorization: Bearer TOKEN` header, or undefined. */
export function bearerTokenOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  // The second space-separated word, as upstream's SplitN(…, " ", 3)[1]; cut
  // with indexOf, not split: a header value from HTTP/2 is an external string,
  // which split handles slowly.
  const text = value.trim();
  const space = text.indexOf(' ');
  if (space < 0 || text.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const end = text.indexOf(' ', space + 1);
  const token = end < 0 ? text.slice(space + 1) : text.slice(space + 1, end);
  return token === '' ? undefined : token;
}

export function newBearerTokenAuthenticator(tokens: TokenAuthenticator): Authenticator {
  return {
    authenticate(ctx: RequestContext) {
      const token = bearerTokenOf(ctx.req.headers.authorization);
      if (token === undefined) return undefined;
      const accepted = (result: AuthenticationResult | undefined): AuthenticationResult => {
        if (result === undefined) throw unauthorized('invalid bearer token');
        delete ctx.req.headers.authorization;
        return result;
      };
      // A synchronous answer (the static token file) is answered synchronously.
      const result = tokens.authenticateToken(token);
      return result instanceof Promise ? result.then(accepted) : accepted(result);
    },
  };
}
