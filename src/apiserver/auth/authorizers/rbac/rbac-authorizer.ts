/**
 * The RBAC authorizer: a request is allowed when a rule of a role bound to
 * its user (or one of its groups, or its service account) allows it: the
 * ClusterRoleBindings first, then the RoleBindings of the request's namespace.
 * It never denies: without a matching rule it has no opinion, and the reason
 * lists the bindings it could not follow (a missing role), as upstream's.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../server/context.js';
import type { RuleResolvingAuthorizer, RuleSet } from '../always.js';
import type { AuthorizationResult, Attributes, NonResourceRule, ResourceRule } from '../interface.js';
import { aggregate } from '../union.js';
import type { Grant, Grants, PolicyIndex } from './policy-index.js';
import { ruleAllows } from './rule-matching.js';
import { describeSubject } from './subjects.js';

/** Where the current policy comes from (an informer-fed source, or a fixed one in tests). */
export interface PolicySource {
  current(): PolicyIndex;
}

/**
 * Calls visit with each rule that applies to the user in the namespace (''
 * for cluster-wide only), with a description of the binding that grants it;
 * stops when visit returns false. Returns the errors met on the way.
 */
export function visitRulesFor(
  policy: PolicyIndex,
  user: UserInfo,
  namespace: string,
  visit: (source: string, rule: PolicyRule) => boolean,
): string[] {
  const grants = policy.grantsFor(user, namespace);
  for (const grant of grants.rules) if (!visit(describeGrant(grant), grant.rule)) return grants.errors.slice(0, grant.errorsBefore);
  return [...grants.errors];
}

/** How upstream's "allowed by" reason names the binding of a grant. */
export function describeGrant(grant: Grant): string {
  const { binding, subject, namespace } = grant;
  const name = binding.metadata?.name ?? '';
  return namespace === ''
    ? `ClusterRoleBinding "${name}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, '')}`
    : `RoleBinding "${name}/${namespace}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, namespace)}`;
}

/** Every rule that applies to the user in the namespace, and the errors met (upstream's RulesFor). */
export function rulesFor(policy: PolicyIndex, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors = visitRulesFor(policy, user, namespace, (_source, rule) => {
    rules.push(rule);
    return true;
  });
  return { rules, errors };
}

export function splitRules(rules: readonly PolicyRule[]): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[] } {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const rule of rules) {
    if ((rule.resources ?? []).length > 0) {
      resourceRules.push({ verbs: rule.verbs ?? [], apiGroups: rule.apiGroups ?? [], resources: rule.resources ?? [], resourceNames: rule.resourceNames ?? [] });
    }
    if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs ?? [] });
  }
  return { resourceRules, nonResourceRules };
}

/** Answers kept per resolved grants (one user, its groups and a namespace, in one policy version). */
const decisions = new WeakMap<Grants, Map<string, AuthorizationResult>>();
/** Per grants; the answers are dropped and worked out again when this many request shapes have been seen. */
const MAX_MEMOISED_DECISIONS = 1024;

function decide(a: Attributes, grants: Grants): AuthorizationResult {
  for (const grant of grants.rules) if (ruleAllows(a, grant.rule)) return Object.freeze({ decision: 'Allow', reason: `RBAC: allowed by ${describeGrant(grant)}` });
  return Object.freeze({ decision: 'NoOpinion', reason: grants.errors.length > 0 ? `RBAC: ${aggregate(grants.errors)}` : '' });
}

export function newRbacAuthorizer(source: PolicySource): RuleResolvingAuthorizer {
  return {
    authorize(a: Attributes): AuthorizationResult {
      // The user's rules are resolved once per policy version (PolicyIndex.grantsFor), and the answer for
      // the same request attributes is kept with them: a changed Role or binding makes a new index, so new grants.
      const grants = source.current().grantsFor(a.user, a.namespace);
      let answers = decisions.get(grants);
      if (answers === undefined) decisions.set(grants, (answers = new Map()));
      const key = a.isResourceRequest ? `r\u0000${a.verb}\u0000${a.apiGroup}\u0000${a.resource}\u0000${a.subresource}\u0000${a.name}` : `n\u0000${a.verb}\u0000${a.path}`;
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = decide(a, grants);
        if (answers.size >= MAX_MEMOISED_DECISIONS) answers.clear();
        answers.set(key, answer);
      }
      return answer;
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RuleSet> {
      const { rules, errors } = rulesFor(source.current(), user, namespace);
      return { ...splitRules(rules), incomplete: false, ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}) };
    },
  };
}
