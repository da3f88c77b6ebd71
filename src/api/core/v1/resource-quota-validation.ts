/**
 * ResourceQuota validation, as upstream's ValidateResourceQuota: each name in
 * spec.hard is a qualified name, standard or fully qualified, and one quota
 * tracks; each quantity is non-negative; scopes are known, do not conflict,
 * and fit the resources they limit. (Upstream's integer check of count
 * resources is not made: it prints a Go struct no client can match.)
 */
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { FieldPath, invalid, RawValue, type FieldError } from '../../../machinery/field-errors.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../../machinery/validation/messages.js';
import { isQualifiedName } from '../../../machinery/validation/names.js';
import { canonicalQuantity } from '../../../machinery/quantity.js';
import { parseQuantityNanos } from './quantity.js';

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);
/** Upstream's standardResources: the quota ones and `storage`. */
const STANDARD_RESOURCES = new Set([...STANDARD_QUOTA_RESOURCES, 'storage']);
const isQuotaHugePages = (name: string): boolean => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');

const STANDARD_SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** Upstream's IsResourceQuotaScopeValidForResource. */
function scopeFits(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return resource === 'pods';
    default:
      return true;
  }
}

function validateQuotaResourceName(name: string, path: FieldPath): FieldError[] {
  const qualified = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (qualified.length > 0) return qualified;
  const errs: FieldError[] = [];
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.has(name) && !isQuotaHugePages(name)) errs.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
    if (!STANDARD_QUOTA_RESOURCES.has(name) && !isQuotaHugePages(name)) errs.push(invalid(path, name, 'must be a standard resource for quota'));
  }
  return errs;
}

/** A Go %#v of a []core.ResourceQuotaScope, as upstream's scope errors print it. */
const goScopes = (scopes: readonly string[]): RawValue => new RawValue(`[]core.ResourceQuotaScope{${scopes.map((s) => JSON.stringify(s)).join(', ')}}`);

export function validateResourceQuota(quota: ResourceQuota): FieldError[] {
  const errs: FieldError[] = [];
  const spec = FieldPath.root('spec');
  const hard = (quota.spec?.hard ?? {}) as Record<string, string | number>;
  for (const [name, value] of Object.entries(hard)) {
    const path = spec.child('hard').key(name);
    errs.push(...validateQuotaResourceName(name, path));
    const q = parseQuantityNanos(value);
    if (q !== undefined && q < 0n) errs.push(invalid(path, canonicalQuantity(String(value)), IS_NEGATIVE_ERROR_MSG));
  }
  const scopes = quota.spec?.scopes ?? [];
  if (scopes.length > 0) {
    const path = spec.child('scopes');
    const names = Object.keys(hard).sort();
    for (const scope of scopes) {
      if (!STANDARD_SCOPES.has(scope)) errs.push(invalid(path, goScopes(scopes), 'unsupported scope'));
      for (const name of names) {
        if (STANDARD_QUOTA_RESOURCES.has(name) && !scopeFits(scope, name)) errs.push(invalid(path, goScopes(scopes), 'unsupported scope applied to resource'));
      }
    }
    const has = new Set(scopes);
    for (const [a, b] of [
      ['BestEffort', 'NotBestEffort'],
      ['Terminating', 'NotTerminating'],
    ] as const) {
      if (has.has(a) && has.has(b)) errs.push(invalid(path, goScopes(scopes), 'conflicting scopes'));
    }
  }
  return errs;
}

/** An update: the spec again, and scopes that stay as they were (as a set). */
export function validateResourceQuotaUpdate(quota: ResourceQuota, old: ResourceQuota): FieldError[] {
  const errs = validateResourceQuota(quota);
  const now = new Set(quota.spec?.scopes ?? []);
  const before = new Set(old.spec?.scopes ?? []);
  if (now.size !== before.size || [...now].some((s) => !before.has(s))) {
    errs.push(invalid(FieldPath.root('spec').child('scopes'), goScopes(quota.spec?.scopes ?? []), 'field is immutable'));
  }
  return errs;
}
