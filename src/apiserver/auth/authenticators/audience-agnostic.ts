/**
 * Upstream's audience-agnostic wrapper, for token authenticators whose tokens
 * carry no audience the API server checks (static tokens; OIDC tokens, whose
 * audience is the client id): such a token is valid for the API server's own
 * audiences. A caller asking for other audiences only (a TokenReview for
 * another service) gets no opinion.
 */
import type { TokenAuthenticator, TokenOptions } from './interface.js';

export function audienceAgnostic(apiAudiences: readonly string[], inner: TokenAuthenticator): TokenAuthenticator {
  return {
    async authenticateToken(token: string, options?: TokenOptions) {
      const wanted = options?.audiences;
      const audiences = wanted === undefined || wanted.length === 0 ? [...apiAudiences] : wanted.filter((a) => apiAudiences.includes(a));
      if (wanted !== undefined && wanted.length > 0 && audiences.length === 0) return undefined;
      const result = await inner.authenticateToken(token, options);
      return result === undefined ? undefined : { ...result, audiences };
    },
  };
}
