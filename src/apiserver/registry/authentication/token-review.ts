/**
 * POST /apis/authentication.k8s.io/v1/tokenreviews: is this token valid, and
 * whose is it? (upstream's TokenReview REST). The bearer-token authenticators
 * of the request path check spec.token against spec.audiences (default: the
 * API server's own, --api-audiences), and the answer's status says:
 * authenticated, the user (with system:authenticated), the audiences the
 * token is valid for, or the error. A refused token is a 201 with
 * authenticated false, not an error of the request.
 */
import { isPlainObject } from '../../../machinery/meta.js';
import { badRequest } from '../../../machinery/status.js';
import type { TokenAuthenticator } from '../../auth/authenticators/interface.js';
import { readObject } from '../../endpoints/decode-object.js';
import { negotiateOutput } from '../../endpoints/negotiation.js';
import type { Handler } from '../../server/context.js';
import { writeObject } from '../../server/response.js';
import { userInfoJson, type UserInfoJson } from './user-info.js';

export interface TokenReviewOptions {
  /** The token authenticators, adding system:authenticated (RequestAuthenticator.tokens). */
  readonly tokens: TokenAuthenticator;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user: UserInfoJson;
  audiences?: string[];
  error?: string;
}

/** The message of a refusal: the authenticator's reason when it gave one, as upstream's status.error. */
function reasonOf(e: unknown): string {
  const cause = e instanceof Error ? e.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return e instanceof Error ? e.message : String(e);
}

export function newTokenReviewHandler(options: TokenReviewOptions): Handler {
  return async (ctx) => {
    const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
    const body = await readObject(ctx, { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' });
    if ((body.metadata.namespace ?? '') !== '') throw badRequest('namespace is not allowed on this type');
    const spec = isPlainObject(body.spec) ? (body.spec as { token?: string; audiences?: string[] | null }) : {};
    const token = spec.token ?? '';
    if (token === '') throw badRequest('token is required for TokenReview in authentication');
    const wanted = spec.audiences ?? [];
    const status: TokenReviewStatus = { user: {} };
    try {
      const result = await options.tokens.authenticateToken(token, wanted.length > 0 ? { audiences: wanted } : {});
      if (result === undefined) status.error = 'invalid bearer token';
      else {
        status.authenticated = true;
        status.user = userInfoJson(result.user);
        if (result.audiences !== undefined && result.audiences.length > 0) status.audiences = [...result.audiences];
      }
    } catch (e: unknown) {
      status.error = reasonOf(e);
    }
    const answer = {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { ...body.metadata, creationTimestamp: null },
      spec: { token, ...(wanted.length > 0 ? { audiences: wanted } : {}) },
      status,
    };
    writeObject(ctx, 201, answer, format);
  };
}
