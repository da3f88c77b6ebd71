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
import type { PolicyIndex } from './policy-index.js';
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
  const errors: string[] = [];
  for (const { binding, subject } of policy.clusterRoleBindingsFor(user)) {
    const rules = policy.roleRefRules(binding.roleRef, '');
    if ('error' in rules) {
      errors.push(rules.error);
      continue;
    }
    const source = `ClusterRoleBinding "${binding.metadata?.name ?? ''}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, '')}`;
    for (const rule of rules.rules) if (!visit(source, rule)) return errors;
  }
  if (namespace === '') return errors;
  for (const { binding, subject } of policy.roleBindingsFor(user, namespace)) {
    const rules = policy.roleRefRules(binding.roleRef, namespace);
    if ('error' in rules) {
      errors.push(rules.error);
      continue;
    }
    const source = `RoleBinding "${binding.metadata?.name ?? ''}/${namespace}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, namespace)}`;
    for (const rule of rules.rules) if (!visit(source, rule)) return errors;
  }
  return errors;
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

export function newRbacAuthorizer(source: PolicySource): RuleResolvingAuthorizer {
  return {
    authorize(a: Attributes): AuthorizationResult {
      let allowedBy: string | undefined;
      const errors = visitRulesFor(source.current(), a.user, a.namespace, (from, rule) => {
        if (!ruleAllows(a, rule)) return true;
        allowedBy = from;
        return false;
      });
      if (allowedBy !== undefined) return { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy}` };
      return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RuleSet> {
      const { rules, errors } = rulesFor(source.current(), user, namespace);
      return { ...splitRules(rules), incomplete: false, ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}) };
    },
  };
}
