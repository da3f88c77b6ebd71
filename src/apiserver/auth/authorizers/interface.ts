/**
 * Authorization: may this user do this? Attributes describe the request as
 * upstream's authorizer.Attributes; each authorizer answers Allow, Deny or
 * NoOpinion, and the union authorizer (built from --authorization-mode, in
 * its order: e.g. Node,RBAC,Webhook) takes the first Allow or Deny. With no
 * Allow the request is refused with 403 and upstream's message:
 *
 *   pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"
 */
import type { UserInfo } from '../../server/context.js';

export interface Attributes {
  readonly user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, proxy; impersonate, bind, escalate, use, approve, sign; or an HTTP verb lowercased for non-resource requests. */
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** Non-resource requests: the URL path (/healthz, /api, …). */
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** Label and field selector requirements of list/watch (upstream's AuthorizeWithSelectors): not used by RBAC. */
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why (shown in SubjectAccessReview status.reason and appended to 403 messages as upstream does). */
  readonly reason: string;
  /** An evaluation error (shown in SubjectAccessReview status.evaluationError). */
  readonly evaluationError?: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): Promise<AuthorizationResult> | AuthorizationResult;
}

export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** What a user may do in a namespace, for SelfSubjectRulesReview (`kubectl auth can-i --list`). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<{ resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; incomplete: boolean; evaluationError?: string }>;
}
