/**
 * Object count quota for any resource (upstream generic.NewObjectCountEvaluator):
 * `count/<resource>.<group>`, and for a few core resources the legacy name as
 * well (`configmaps`, `secrets`, `replicationcontrollers`, `resourcequotas`).
 */
import { objectCountName, type QuotaEvaluator } from './evaluator.js';

/** Upstream's legacyObjectCountAliases. */
const LEGACY_NAMES: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

export function newObjectCountEvaluator(group: string, resource: string): QuotaEvaluator {
  const names = [objectCountName(group, resource)];
  const legacy = group === '' ? LEGACY_NAMES[resource] : undefined;
  if (legacy !== undefined) names.push(legacy);
  const usage = Object.fromEntries(names.map((n) => [n, '1']));
  return {
    group,
    resource,
    handles: (operation, subresource) => subresource === '' && operation === 'CREATE',
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => ({ ...usage }),
  };
}
