/**
 * POST /apis/authentication.k8s.io/v1/selfsubjectreviews: who am I? (upstream's
 * SelfSubjectReview REST, behind `kubectl auth whoami`). The answer names the
 * user the request was authenticated as, with its uid, groups and extra.
 * Served as v1 and, for kubectl 1.27 (which asks v1beta1 only), v1beta1 —
 * answered but not advertised: upstream 1.33 serves v1beta1 only when
 * --runtime-config enables it, so discovery and OpenAPI list v1 alone.
 */
import { formatTime } from '../../../machinery/meta.js';
import { badRequest } from '../../../machinery/status.js';
import { readObject } from '../../endpoints/decode-object.js';
import { negotiateOutput } from '../../endpoints/negotiation.js';
import type { Handler } from '../../server/context.js';
import { writeObject } from '../../server/response.js';
import { userInfoJson } from './user-info.js';

export function newSelfSubjectReviewHandler(version: 'v1' | 'v1beta1'): Handler {
  return async (ctx) => {
    const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
    const body = await readObject(ctx, { group: 'authentication.k8s.io', version, kind: 'SelfSubjectReview' });
    const user = ctx.user;
    if (user === undefined) throw badRequest('no user present on request');
    const answer = {
      kind: 'SelfSubjectReview',
      apiVersion: `authentication.k8s.io/${version}`,
      metadata: { ...body.metadata, creationTimestamp: formatTime(new Date()) },
      status: { userInfo: userInfoJson(user) },
    };
    writeObject(ctx, 201, answer, format);
  };
}
