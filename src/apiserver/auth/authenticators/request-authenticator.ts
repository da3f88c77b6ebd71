/**
 * The API server's authenticator, built from its flags as upstream's
 * authenticator config builds it: client certificates first, then the bearer
 * token authenticators (static token file, service-account JWTs, OIDC) in
 * that order; every user found gets system:authenticated; a request nobody
 * recognizes is anonymous when anonymous auth is on, else refused (401).
 */
import { unauthorized } from '../../../machinery/status.js';
import type { RequestContext } from '../../server/context.js';
import { ANONYMOUS, withAuthenticatedGroup } from './anonymous.js';
import { newBearerTokenAuthenticator } from './bearer-token.js';
import type { AuthenticationResult, Authenticator, TokenAuthenticator, TokenOptions } from './interface.js';
import { newUnionAuthenticator, newUnionTokenAuthenticator } from './union.js';
import { newX509Authenticator } from './x509.js';

export interface RequestAuthenticatorOptions {
  /** Client certificates (default on: the listener verifies them against --client-ca-file). */
  readonly x509?: boolean;
  /** The bearer-token authenticators, in the order they are asked. */
  readonly tokenAuthenticators?: readonly TokenAuthenticator[];
  /** --anonymous-auth (default true). */
  readonly anonymous?: boolean;
}

export interface RequestAuthenticator extends Authenticator {
  /** A synchronous answer when every authenticator asked answered synchronously; throws (or rejects) 401. */
  authenticate(ctx: RequestContext): Promise<AuthenticationResult> | AuthenticationResult;
  /** The token authenticators alone (TokenReview runs them). */
  readonly tokens: TokenAuthenticator;
}

export function newRequestAuthenticator(options: RequestAuthenticatorOptions = {}): RequestAuthenticator {
  const tokens = newUnionTokenAuthenticator(options.tokenAuthenticators ?? []);
  const authenticators: Authenticator[] = [];
  if (options.x509 !== false) authenticators.push(newX509Authenticator());
  if ((options.tokenAuthenticators ?? []).length > 0) authenticators.push(newBearerTokenAuthenticator(tokens));
  const union = newUnionAuthenticator(authenticators);
  const anonymous = options.anonymous ?? true;
  // Client certificates (per connection) and static tokens answer with the same object each time: so does this.
  const authenticated = new WeakMap<AuthenticationResult, AuthenticationResult>();
  const decide = (result: AuthenticationResult | undefined): AuthenticationResult => {
    if (result !== undefined) {
      let answer = authenticated.get(result);
      if (answer === undefined) authenticated.set(result, (answer = { ...result, user: withAuthenticatedGroup(result.user) }));
      return answer;
    }
    if (!anonymous) throw unauthorized();
    return { user: ANONYMOUS };
  };
  return {
    tokens: {
      async authenticateToken(token: string, tokenOptions?: TokenOptions) {
        const result = await tokens.authenticateToken(token, tokenOptions);
        return result === undefined ? undefined : { ...result, user: withAuthenticatedGroup(result.user) };
      },
    },
    authenticate(ctx: RequestContext) {
      // Client certificates and static tokens answer synchronously: no promise for them.
      const result = union.authenticate(ctx);
      return result instanceof Promise ? result.then(decide) : decide(result);
    },
  };
}
