/**
 * Creates or reconciles the bootstrap policy at each start, as upstream's
 * rbac/bootstrap-roles PostStartHook: a missing object is created; an existing
 * one whose autoupdate annotation is not "false" gains the rules, labels,
 * annotations, aggregation selectors and subjects it lacks (nothing is taken
 * away); the rules of aggregated roles are left to the aggregation.
 */
import type { ClusterRole, PolicyRule, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { covers } from '../authorizers/rbac/covers.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { isAlreadyExists, isNotFound } from '../../../machinery/status.js';
import type { GenericStore } from '../../registry/generic/store.js';
import { bootstrapClusterRoleBindings, bootstrapRoleBindings, bootstrapRoles } from './bindings.js';
import { AUTOUPDATE_ANNOTATION, bootstrapClusterRoles } from './cluster-roles.js';

export interface BootstrapPolicyStores {
  readonly clusterRoles: GenericStore;
  readonly clusterRoleBindings: GenericStore;
  readonly roles: GenericStore;
  readonly roleBindings: GenericStore;
}

type Merge = (existing: KubeObject, wanted: KubeObject) => boolean;

const protectedFromUpdate = (o: KubeObject): boolean => o.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

function mergeMeta(existing: KubeObject, wanted: KubeObject): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    for (const [k, v] of Object.entries(wanted.metadata[field] ?? {})) {
      const map = (existing.metadata[field] ??= {});
      if (!(k in map)) {
        map[k] = v;
        changed = true;
      }
    }
  }
  return changed;
}

const mergeRole: Merge = (existing, wanted) => {
  let changed = mergeMeta(existing, wanted);
  const wantedRole = wanted as unknown as ClusterRole;
  const role = existing as unknown as ClusterRole;
  if (wantedRole.aggregationRule !== undefined) {
    const selectors = (role.aggregationRule ??= {}).clusterRoleSelectors ??= [];
    for (const s of wantedRole.aggregationRule.clusterRoleSelectors ?? []) {
      if (!selectors.some((e) => JSON.stringify(e) === JSON.stringify(s))) {
        selectors.push(s);
        changed = true;
      }
    }
    return changed;
  }
  const missing = covers(role.rules ?? [], wantedRole.rules ?? []);
  if (!missing.covered) {
    role.rules = [...(role.rules ?? []), ...(wantedRole.rules ?? []).filter((r) => !covers(role.rules ?? [], [r]).covered)] as PolicyRule[];
    changed = true;
  }
  return changed;
};

const mergeBinding: Merge = (existing, wanted) => {
  let changed = mergeMeta(existing, wanted);
  const subjects = ((existing as unknown as RoleBinding).subjects ??= []) as Subject[];
  for (const s of (wanted as unknown as RoleBinding).subjects ?? []) {
    if (!subjects.some((e) => e.kind === s.kind && e.name === s.name && (e.namespace ?? '') === (s.namespace ?? ''))) {
      subjects.push(s);
      changed = true;
    }
  }
  return changed;
};

async function ensure(store: GenericStore, wanted: KubeObject, merge: Merge): Promise<void> {
  const namespace = wanted.metadata.namespace;
  const name = wanted.metadata.name ?? '';
  try {
    await store.create(namespace, structuredClone(wanted));
    return;
  } catch (e: unknown) {
    if (!isAlreadyExists(e)) throw e;
  }
  const existing = await store.get(namespace, name);
  if (protectedFromUpdate(existing) || !merge(structuredClone(existing), wanted)) return;
  try {
    await store.update(namespace, name, (current) => {
      if (current === undefined || protectedFromUpdate(current)) return current ?? structuredClone(wanted);
      merge(current, wanted);
      return current;
    });
  } catch (e: unknown) {
    if (!isNotFound(e)) throw e;
  }
}

export async function ensureBootstrapPolicy(stores: BootstrapPolicyStores): Promise<void> {
  for (const r of bootstrapClusterRoles()) await ensure(stores.clusterRoles, r as unknown as KubeObject, mergeRole);
  for (const b of bootstrapClusterRoleBindings()) await ensure(stores.clusterRoleBindings, b as unknown as KubeObject, mergeBinding);
  for (const r of bootstrapRoles()) await ensure(stores.roles, r as unknown as KubeObject, mergeRole);
  for (const b of bootstrapRoleBindings()) await ensure(stores.roleBindings, b as unknown as KubeObject, mergeBinding);
}
