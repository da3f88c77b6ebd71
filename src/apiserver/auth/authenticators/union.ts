/**
 * Unions, as upstream's: ask each authenticator in turn and take the first
 * user. An authenticator that rejects a credential (throws) does not stop the
 * others — the credential may be another's (a JWT of a second issuer) — but
 * when nobody accepts the request, the first rejection is the answer (401).
 */
import type { RequestContext } from '../../server/context.js';
import type { AuthenticationResult, Authenticator, TokenAuthenticator, TokenOptions } from './interface.js';

export function newUnionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    async authenticate(ctx: RequestContext) {
      return firstAccepted(authenticators, (a) => a.authenticate(ctx));
    },
  };
}

export function newUnionTokenAuthenticator(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    async authenticateToken(token: string, options?: TokenOptions) {
      return firstAccepted(authenticators, (a) => a.authenticateToken(token, options));
    },
  };
}

async function firstAccepted<A>(
  authenticators: readonly A[],
  ask: (a: A) => Promise<AuthenticationResult | undefined> | AuthenticationResult | undefined,
): Promise<AuthenticationResult | undefined> {
  let rejection: unknown;
  let rejected = false;
  for (const a of authenticators) {
    try {
      const result = await ask(a);
      if (result !== undefined) return result;
    } catch (e: unknown) {
      if (!rejected) rejection = e;
      rejected = true;
    }
  }
  if (rejected) throw rejection;
  return undefined;
}
