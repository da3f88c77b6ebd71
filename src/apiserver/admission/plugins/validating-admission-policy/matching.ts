/**
 * Does a policy's matchConstraints, or a binding's matchResources, cover a
 * request? As upstream's matcher: the namespace selector, then the object
 * selector, then excludeResourceRules (a match excludes), then resourceRules
 * with their resourceNames (a binding without resourceRules takes everything
 * its policy matches). Rules and selectors are the webhook plugins' own.
 * matchPolicy Equivalent matches as Exact: k8ts serves each resource in one
 * group and version, so there is no equivalent resource to try.
 */
import type { MatchResources, NamedRuleWithOperations } from '../../../../api/admissionregistration/v1/policy-types.js';
import type { AdmissionAttributes } from '../../interfaces.js';
import { ruleMatches } from '../webhook/rules.js';
import { namespaceSelectorMatches, objectSelectorMatches, selectorOf, type NamespaceLabels } from '../webhook/selectors.js';

function namedRulesMatch(rules: readonly NamedRuleWithOperations[] | undefined, attributes: AdmissionAttributes): boolean {
  return (rules ?? []).some((rule) => {
    if (!ruleMatches(rule, attributes)) return false;
    const names = rule.resourceNames ?? [];
    return names.length === 0 || names.includes(attributes.name);
  });
}

/** Throws when the request's namespace cannot be read (a configuration error for the caller's failurePolicy). */
export async function matchResourcesMatch(
  match: MatchResources,
  attributes: AdmissionAttributes,
  namespaceLabels: NamespaceLabels,
  options: { readonly isBinding: boolean },
): Promise<boolean> {
  if (!(await namespaceSelectorMatches(selectorOf(match.namespaceSelector), attributes, namespaceLabels))) return false;
  if (!objectSelectorMatches(selectorOf(match.objectSelector), attributes)) return false;
  if (namedRulesMatch(match.excludeResourceRules, attributes)) return false;
  if (options.isBinding && (match.resourceRules === undefined || match.resourceRules === null)) return true;
  return namedRulesMatch(match.resourceRules, attributes);
}
