/** The evaluator of a resource: pods, services and claims have their own; every other resource counts objects. */
import type { QuotaEvaluator } from './evaluator.js';
import { newObjectCountEvaluator } from './object-count.js';
import { persistentVolumeClaimEvaluator } from './persistent-volume-claims.js';
import { podEvaluator } from './pods.js';
import { serviceEvaluator } from './services.js';

const SPECIAL: ReadonlyMap<string, QuotaEvaluator> = new Map([podEvaluator, serviceEvaluator, persistentVolumeClaimEvaluator].map((e) => [`${e.group}/${e.resource}`, e]));
const counters = new Map<string, QuotaEvaluator>();

export function evaluatorFor(group: string, resource: string): QuotaEvaluator {
  const key = `${group}/${resource}`;
  const special = SPECIAL.get(key);
  if (special !== undefined) return special;
  let counter = counters.get(key);
  if (counter === undefined) {
    counter = newObjectCountEvaluator(group, resource);
    counters.set(key, counter);
  }
  return counter;
}

/**
 * The resource a quota name counts: `count/deployments.apps` → apps/deployments,
 * `pods` → /pods, `requests.storage` → /persistentvolumeclaims; undefined for
 * a name no evaluator knows.
 */
export function resourceOfQuotaName(name: string): { group: string; resource: string } | undefined {
  if (name.startsWith('count/')) {
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
  }
  for (const e of SPECIAL.values()) if (e.matchingResources([name]).length > 0) return { group: e.group, resource: e.resource };
  for (const resource of ['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas']) if (name === resource) return { group: '', resource };
  return undefined;
}
