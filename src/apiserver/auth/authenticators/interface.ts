/**
 * Authentication: who sent a request. Each authenticator looks at one kind of
 * credential (client certificate, bearer token of a kind, …). The union
 * authenticator asks them in turn:
 *
 * - `undefined`: this authenticator has no opinion (no credential of its kind); ask the next.
 * - a result: the user. Every authenticated user also gets the group system:authenticated.
 * - a thrown StatusError 401 (`unauthorized()`): the request carried a credential
 *   of this kind and it is bad (malformed, expired, foreign-signed, revoked). Upstream
 *   answers 401 for an invalid bearer token even when anonymous access is on.
 *
 * When nobody recognizes the request, it is anonymous (system:anonymous in
 * system:unauthenticated) if anonymous auth is enabled, else 401.
 */
import type { RequestContext, UserInfo } from '../../server/context.js';

export interface AuthenticationResult {
  readonly user: UserInfo;
  /** The audiences the credential was valid for (bound service-account tokens, OIDC). */
  readonly audiences?: readonly string[];
}

export interface Authenticator {
  authenticate(ctx: RequestContext): Promise<AuthenticationResult | undefined> | AuthenticationResult | undefined;
}

/**
 * What a token is checked against. `audiences`: the audiences the caller
 * accepts (TokenReview's spec.audiences); absent, the API server's own
 * (--api-audiences), as upstream's implicit audiences.
 */
export interface TokenOptions {
  readonly audiences?: readonly string[];
}

/** A bearer-token authenticator (static token file, service-account JWTs, OIDC, webhook): the token is already extracted. */
export interface TokenAuthenticator {
  authenticateToken(token: string, options?: TokenOptions): Promise<AuthenticationResult | undefined> | AuthenticationResult | undefined;
}
