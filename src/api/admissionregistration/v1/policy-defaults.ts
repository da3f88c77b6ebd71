/**
 * Defaults of ValidatingAdmissionPolicy and its binding, as upstream's
 * SetDefaults_*: failurePolicy Fail; match resources with empty selectors,
 * matchPolicy Equivalent and rule scope `*`.
 */
import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './policy-types.js';

function defaultMatchResources(match: MatchResources): void {
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  match.matchPolicy ??= 'Equivalent';
  for (const rule of [...(match.resourceRules ?? []), ...(match.excludeResourceRules ?? [])]) rule.scope ??= '*';
}

export function defaultValidatingAdmissionPolicy(policy: ValidatingAdmissionPolicy): void {
  const spec = policy.spec;
  if (spec === undefined || spec === null) return;
  spec.failurePolicy ??= 'Fail';
  if (spec.matchConstraints !== undefined && spec.matchConstraints !== null) defaultMatchResources(spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(binding: ValidatingAdmissionPolicyBinding): void {
  const match = binding.spec?.matchResources;
  if (match !== undefined && match !== null) defaultMatchResources(match);
}
