/**
 * The authentication.k8s.io resources: TokenReview and SelfSubjectReview,
 * create-only and never stored, by `group/version/resource`.
 */
import type { TokenAuthenticator } from '../../auth/authenticators/interface.js';
import type { Handler } from '../../server/context.js';
import { newSelfSubjectReviewHandler } from './self-subject-review.js';
import { newTokenReviewHandler } from './token-review.js';

export function authenticationHandlers(options: { tokens: TokenAuthenticator }): Map<string, Handler> {
  return new Map([
    ['authentication.k8s.io/v1/tokenreviews', newTokenReviewHandler(options)],
    ['authentication.k8s.io/v1/selfsubjectreviews', newSelfSubjectReviewHandler('v1')],
    ['authentication.k8s.io/v1beta1/selfsubjectreviews', newSelfSubjectReviewHandler('v1beta1')],
  ]);
}
