/**
 * Unions, as upstream's: ask each authenticator in turn and take the first
 * user. An authenticator that rejects a credential (throws) does not stop the
 * others — the credential may be another's (a JWT of a second issuer) — but
 * when nobody accepts the request, the first rejection is the answer (401).
 */
import type { RequestContext } from '../../server/context.js';
import type { AuthenticationResult, Authenticator, TokenAuthenticator, TokenOptions } from './interface.js';

type Answer = Promise<AuthenticationResult | undefined> | AuthenticationResult | undefined;

export function newUnionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    authenticate(ctx: RequestContext) {
      return firstAccepted(authenticators, (a) => a.authenticate(ctx));
    },
  };
}

export function newUnionTokenAuthenticator(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    authenticateToken(token: string, options?: TokenOptions) {
      return firstAccepted(authenticators, (a) => a.authenticateToken(token, options));
    },
  };
}

/**
 * The first accepted answer. While every authenticator answers synchronously
 * (client certificates, static tokens) so does this, without a promise per
 * request; from the first asynchronous answer on it continues asynchronously.
 */
function firstAccepted<A>(authenticators: readonly A[], ask: (a: A) => Answer): Answer {
  let rejection: unknown;
  let rejected = false;
  for (let i = 0; i < authenticators.length; i++) {
    try {
      const result = ask(authenticators[i]!);
      if (result instanceof Promise) return settleRest(authenticators, ask, i, result, rejected, rejection);
      if (result !== undefined) return result;
    } catch (e: unknown) {
      if (!rejected) rejection = e;
      rejected = true;
    }
  }
  if (rejected) throw rejection;
  return undefined;
}

/** firstAccepted from authenticator `i` on, whose answer is pending. */
async function settleRest<A>(
  authenticators: readonly A[],
  ask: (a: A) => Answer,
  i: number,
  pending: Promise<AuthenticationResult | undefined> | undefined,
  rejected: boolean,
  rejection: unknown,
): Promise<AuthenticationResult | undefined> {
  for (; i < authenticators.length; i++) {
    try {
      const result = await (pending ?? ask(authenticators[i]!));
      if (result !== undefined) return result;
    } catch (e: unknown) {
      if (!rejected) rejection = e;
      rejected = true;
    }
    pending = undefined;
  }
  if (rejected) throw rejection;
  return undefined;
}
