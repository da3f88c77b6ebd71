/**
 * authorization.k8s.io/v1: the create-only review kinds, which store nothing
 * and answer in their status, as upstream's registry/authorization:
 *
 *   SubjectAccessReview        may this user (spec.user/groups/extra/uid) do this?
 *   LocalSubjectAccessReview   the same, inside the URL's namespace
 *   SelfSubjectAccessReview    may I do this?            (`kubectl auth can-i`)
 *   SelfSubjectRulesReview     what may I do in this namespace? (`kubectl auth can-i --list`)
 */
import * as fields from '../../../machinery/field-errors.js';
import type { FieldError } from '../../../machinery/field-errors.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { badRequest, invalid, methodNotAllowed, resourceNotFound } from '../../../machinery/status.js';
import type { RuleResolvingAuthorizer } from '../../auth/authorizers/always.js';
import type { Attributes } from '../../auth/authorizers/interface.js';
import { readObject } from '../../endpoints/decode-object.js';
import { negotiateOutput } from '../../endpoints/negotiation.js';
import type { Handler, UserInfo } from '../../server/context.js';
import { ANONYMOUS } from '../../auth/authenticators/anonymous.js';
import { writeObject } from '../../server/response.js';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

const KINDS: Readonly<Record<string, { kind: string; namespaced: boolean }>> = {
  subjectaccessreviews: { kind: 'SubjectAccessReview', namespaced: false },
  localsubjectaccessreviews: { kind: 'LocalSubjectAccessReview', namespaced: true },
  selfsubjectaccessreviews: { kind: 'SelfSubjectAccessReview', namespaced: false },
  selfsubjectrulesreviews: { kind: 'SelfSubjectRulesReview', namespaced: false },
};

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** Field errors of an access review's spec (upstream's ValidateSubjectAccessReviewSpec and the self variant). */
export function validateAccessReviewSpec(spec: AccessReviewSpec, self: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (present(spec.resourceAttributes) && present(spec.nonResourceAttributes)) {
    errors.push(fields.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  }
  if (!present(spec.resourceAttributes) && !present(spec.nonResourceAttributes)) {
    errors.push(fields.invalid('spec.resourceAttributes', spec.nonResourceAttributes ?? null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (!self && (spec.user ?? '') === '' && (spec.groups ?? []).length === 0) {
    errors.push(fields.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  }
  return errors;
}

/** The authorization attributes a review asks about (upstream's ResourceAttributesFrom / NonResourceAttributesFrom). */
export function reviewAttributes(user: UserInfo, spec: AccessReviewSpec): Attributes {
  const r = spec.resourceAttributes;
  if (r !== undefined && r !== null) {
    return {
      user,
      verb: r.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: r.namespace ?? '',
      apiGroup: r.group ?? '',
      apiVersion: r.version === undefined || r.version === '' ? '*' : r.version,
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

const specUser = (spec: AccessReviewSpec): UserInfo => ({
  name: spec.user ?? '',
  groups: spec.groups ?? [],
  ...(spec.uid !== undefined && spec.uid !== '' ? { uid: spec.uid } : {}),
  ...(spec.extra !== undefined ? { extra: spec.extra } : {}),
});

export interface ReviewHandlerOptions {
  readonly authorizer: RuleResolvingAuthorizer;
}

export function newAuthorizationReviewHandler(options: ReviewHandlerOptions): Handler {
  const { authorizer } = options;
  return async (ctx) => {
    const info = ctx.info;
    const entry = info.apiVersion === 'v1' ? KINDS[info.resource] : undefined;
    if (entry === undefined || info.subresource !== '') throw resourceNotFound();
    if (entry.namespaced !== (info.namespace !== '')) throw resourceNotFound();
    if (info.verb !== 'create' || info.name !== '') throw methodNotAllowed();
    const format = negotiateOutput(ctx.req.headers.accept, { transforms: false });
    const expected = { group: AUTHORIZATION_GROUP, version: 'v1', kind: entry.kind };
    const review = await readObject(ctx, expected, 'CreateOptions');
    const spec = (review.spec ?? {}) as AccessReviewSpec;
    const requester = ctx.user ?? ANONYMOUS;
    const gk = { group: AUTHORIZATION_GROUP, kind: entry.kind };

    if (entry.kind === 'SelfSubjectRulesReview') {
      const namespace = (spec as { namespace?: string }).namespace ?? '';
      if (namespace === '') throw badRequest('no namespace on request');
      const rules = await authorizer.rulesFor(requester, namespace);
      const status = {
        resourceRules: rules.resourceRules.map((r) => ({
          verbs: [...r.verbs],
          ...(r.apiGroups.length > 0 ? { apiGroups: [...r.apiGroups] } : {}),
          ...(r.resources.length > 0 ? { resources: [...r.resources] } : {}),
          ...(r.resourceNames.length > 0 ? { resourceNames: [...r.resourceNames] } : {}),
        })),
        nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: [...r.verbs], ...(r.nonResourceURLs.length > 0 ? { nonResourceURLs: [...r.nonResourceURLs] } : {}) })),
        incomplete: rules.incomplete,
        ...(rules.evaluationError !== undefined && rules.evaluationError !== '' ? { evaluationError: rules.evaluationError } : {}),
      };
      return writeObject(ctx, 201, answer(review, status), format);
    }

    const self = entry.kind === 'SelfSubjectAccessReview';
    const errors = validateAccessReviewSpec(spec, self);
    if (errors.length > 0) throw invalid(gk, '', errors);
    if (entry.kind === 'LocalSubjectAccessReview') {
      const objectNamespace = review.metadata.namespace ?? '';
      if (objectNamespace !== '' && objectNamespace !== info.namespace) throw badRequest(`namespace of provided object does not match namespace sent on the request`);
      if (present(spec.resourceAttributes) && (spec.resourceAttributes!.namespace ?? '') !== info.namespace) {
        throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${info.namespace}`);
      }
    }
    const user = self ? requester : specUser(spec);
    const result = await authorizer.authorize(reviewAttributes(user, spec));
    const status = {
      allowed: result.decision === 'Allow',
      ...(result.decision === 'Deny' ? { denied: true } : {}),
      ...(result.reason !== '' ? { reason: result.reason } : {}),
      ...(result.evaluationError !== undefined && result.evaluationError !== '' ? { evaluationError: result.evaluationError } : {}),
    };
    writeObject(ctx, 201, answer(review, status), format);
  };
}

function answer(review: KubeObject, status: Record<string, unknown>): KubeObject {
  const metadata = { ...review.metadata };
  if (metadata.creationTimestamp === undefined) (metadata as Record<string, unknown>).creationTimestamp = null;
  return { ...review, metadata, status };
}
