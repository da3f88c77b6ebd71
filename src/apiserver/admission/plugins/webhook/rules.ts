/**
 * Does a webhook rule cover a request? As upstream's rules.Matcher:
 * operation, API group, version, resource with subresource (`*` is every
 * resource without subresources, `*\/*` everything, `pods/*` pods and its
 * subresources, `*\/status` every status), and scope (Namespace objects are
 * cluster-scoped).
 */
import type { RuleWithOperations } from '../../../../api/admissionregistration/v1/types.js';
import type { AdmissionAttributes } from '../../interfaces.js';

type RuleTarget = Pick<AdmissionAttributes, 'operation' | 'resource' | 'subresource' | 'namespace'>;

const covers = (values: readonly string[] | undefined, value: string): boolean => (values ?? []).some((v) => v === '*' || v === value);

function resourceMatches(resources: readonly string[] | undefined, resource: string, subresource: string): boolean {
  return (resources ?? []).some((entry) => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
  });
}

function isClusterScoped(target: RuleTarget): boolean {
  return target.namespace === '' || (target.resource.group === '' && target.resource.resource === 'namespaces');
}

function scopeMatches(scope: string | undefined, target: RuleTarget): boolean {
  switch (scope ?? '*') {
    case 'Cluster':
      return isClusterScoped(target);
    case 'Namespaced':
      return !isClusterScoped(target);
    default:
      return true;
  }
}

export function ruleMatches(rule: RuleWithOperations, target: RuleTarget): boolean {
  return (
    covers(rule.operations, target.operation) &&
    covers(rule.apiGroups, target.resource.group) &&
    covers(rule.apiVersions, target.resource.version) &&
    resourceMatches(rule.resources, target.resource.resource, target.subresource) &&
    scopeMatches(rule.scope, target)
  );
}

export function anyRuleMatches(rules: readonly RuleWithOperations[] | undefined, target: RuleTarget): boolean {
  return (rules ?? []).some((rule) => ruleMatches(rule, target));
}
