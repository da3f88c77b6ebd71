/**
 * Upstream's audience-agnostic wrapper, for token authenticators whose tokens
 * carry no audience the API server checks (static tokens; OIDC tokens, whose
 * audience is the client id): such a token is valid for the API server's own
 * audiences. A caller asking for other audiences only (a TokenReview for
 * another service) gets no opinion.
 */
import type { AuthenticationResult, TokenAuthenticator, TokenOptions } from './interface.js';

export function audienceAgnostic(apiAudiences: readonly string[], inner: TokenAuthenticator): TokenAuthenticator {
  const own = [...apiAudiences];
  // An inner answer that is the same object each time (the static token file's) gets the same answer with the API
  // server's audiences each time, made once. Answers are read-only (TokenReview copies the audiences it reports).
  const withOwn = new WeakMap<AuthenticationResult, AuthenticationResult>();
  const withOwnAudiences = (r: AuthenticationResult | undefined): AuthenticationResult | undefined => {
    if (r === undefined) return undefined;
    let answer = withOwn.get(r);
    if (answer === undefined) withOwn.set(r, (answer = { ...r, audiences: own }));
    return answer;
  };
  return {
    authenticateToken(token: string, options?: TokenOptions) {
      const wanted = options?.audiences;
      // A synchronous inner answer (the static token file) is answered synchronously.
      if (wanted === undefined || wanted.length === 0) {
        const result = inner.authenticateToken(token, options);
        return result instanceof Promise ? result.then(withOwnAudiences) : withOwnAudiences(result);
      }
      const audiences = wanted.filter((a) => apiAudiences.includes(a));
      if (audiences.length === 0) return undefined;
      const withAudiences = (r: AuthenticationResult | undefined): AuthenticationResult | undefined => (r === undefined ? undefined : { ...r, audiences });
      const result = inner.authenticateToken(token, options);
      return result instanceof Promise ? result.then(withAudiences) : withAudiences(result);
    },
  };
}
