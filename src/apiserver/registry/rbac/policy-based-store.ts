/**
 * The stores of Roles, ClusterRoles, RoleBindings and ClusterRoleBindings
 * check escalation before a user's create or update (upstream's policybased
 * storage): the rules written, or the role bound, must be held by the user
 * unless they have the escalate or bind verb (auth/authorizers/rbac/escalation.ts).
 * An update that leaves the rules (or the roleRef and subjects) as they were
 * is not checked again: only finalizers, owner references or labels changed.
 */
import type { PolicyRule, RoleRef } from 'kubernetes-types/rbac/v1.js';
import type { EscalationGuard } from '../../auth/authorizers/rbac/escalation.js';
import type { KubeObject } from '../../../machinery/meta.js';
import type { ResourceDefinition } from '../definition.js';
import { GenericStore, type StoreConfig, type WriteOptions } from '../generic/store.js';

type Check = (guard: EscalationGuard, options: WriteOptions, namespace: string, object: KubeObject) => Promise<void>;

const roleCheck: Check = (guard, options, namespace, object) =>
  guard.checkRole(options.user, {
    namespace,
    name: object.metadata.name ?? '',
    rules: (object.rules as PolicyRule[] | undefined) ?? [],
    aggregated: object.aggregationRule !== undefined && object.aggregationRule !== null,
  });

const bindingCheck: Check = (guard, options, namespace, object) =>
  guard.checkBinding(options.user, { namespace, name: object.metadata.name ?? '', roleRef: (object.roleRef as RoleRef | undefined) ?? { apiGroup: '', kind: '', name: '' } });

const sameGrant = (a: KubeObject, b: KubeObject, fields: readonly string[]): boolean => fields.every((f) => JSON.stringify(a[f] ?? null) === JSON.stringify(b[f] ?? null));

function policyBasedStore(guard: EscalationGuard, check: Check, grantFields: readonly string[]): (config: StoreConfig) => GenericStore {
  return (config) => {
    class PolicyBasedStore extends GenericStore {
      override async create(namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
        await check(guard, options, config.resource.namespaced ? (namespace ?? '') : '', body);
        return super.create(namespace, body, options);
      }

      override async update(
        namespace: string | undefined,
        name: string,
        compute: (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>,
        options: WriteOptions & { allowCreate?: boolean } = {},
      ): Promise<{ object: KubeObject; created: boolean }> {
        if (options.user === undefined) return super.update(namespace, name, compute, options);
        const checked = async (current: KubeObject | undefined): Promise<KubeObject> => {
          const next = await compute(current);
          if (current === undefined || !sameGrant(next, current, grantFields)) await check(guard, options, config.resource.namespaced ? (namespace ?? '') : '', next);
          return next;
        };
        return super.update(namespace, name, checked, options);
      }
    }
    return new PolicyBasedStore(config);
  };
}

/** A role kind's definition with escalation checks. */
export function roleDefinition(base: ResourceDefinition, guard: EscalationGuard): ResourceDefinition {
  return { ...base, newStore: policyBasedStore(guard, roleCheck, ['rules', 'aggregationRule']) };
}

/** A binding kind's definition with escalation checks. */
export function bindingDefinition(base: ResourceDefinition, guard: EscalationGuard): ResourceDefinition {
  return { ...base, newStore: policyBasedStore(guard, bindingCheck, ['roleRef', 'subjects']) };
}
