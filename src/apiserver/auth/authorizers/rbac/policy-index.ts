/**
 * The RBAC objects the authorizer reads, indexed by subject so that a request
 * looks only at the bindings that name its user or one of its groups. An index
 * is immutable: the source builds a new one after a change.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../../server/context.js';
import { appliesTo, serviceAccountUsername } from './subjects.js';

export interface PolicyObjects {
  readonly clusterRoles: readonly ClusterRole[];
  readonly clusterRoleBindings: readonly ClusterRoleBinding[];
  readonly roles: readonly Role[];
  readonly roleBindings: readonly RoleBinding[];
}

type Binding = ClusterRoleBinding | RoleBinding;

interface Entry<B extends Binding> {
  readonly ordinal: number;
  readonly binding: B;
}

/** A binding that applies to the user, with the subject that made it apply. */
export interface AppliedBinding<B extends Binding = Binding> {
  readonly binding: B;
  readonly subject: Subject;
}

const subjectKeys = (subject: Subject, bindingNamespace: string): string[] => {
  switch (subject.kind) {
    case 'User':
      return [`u:${subject.name}`];
    case 'Group':
      return [`g:${subject.name}`];
    case 'ServiceAccount': {
      const ns = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      return ns === '' ? [] : [`u:${serviceAccountUsername(ns, subject.name)}`];
    }
    default:
      return [];
  }
};

class SubjectIndex<B extends Binding> {
  private readonly byKey = new Map<string, Entry<B>[]>();

  add(ordinal: number, binding: B, namespace: string): void {
    const keys = new Set((binding.subjects ?? []).flatMap((s) => subjectKeys(s, namespace)));
    for (const key of keys) {
      let list = this.byKey.get(key);
      if (list === undefined) this.byKey.set(key, (list = []));
      list.push({ ordinal, binding });
    }
  }

  /** The bindings naming the user, in the order of the original list. */
  appliesTo(user: UserInfo, namespace: string): AppliedBinding<B>[] {
    const found = new Map<number, Entry<B>>();
    for (const key of [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)]) {
      for (const entry of this.byKey.get(key) ?? []) found.set(entry.ordinal, entry);
    }
    return [...found.values()]
      .sort((a, b) => a.ordinal - b.ordinal)
      .map(({ binding }) => ({ binding, subject: (binding.subjects ?? []).find((s) => appliesTo(user, s, namespace))! }))
      .filter((applied) => applied.subject !== undefined);
  }
}

export class PolicyIndex {
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly roles = new Map<string, Role>();
  private readonly clusterBindings = new SubjectIndex<ClusterRoleBinding>();
  private readonly namespaceBindings = new Map<string, SubjectIndex<RoleBinding>>();

  constructor(objects: PolicyObjects) {
    for (const r of objects.clusterRoles) this.clusterRoles.set(r.metadata?.name ?? '', r);
    for (const r of objects.roles) this.roles.set(`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`, r);
    objects.clusterRoleBindings.forEach((b, i) => this.clusterBindings.add(i, b, ''));
    objects.roleBindings.forEach((b, i) => {
      const ns = b.metadata?.namespace ?? '';
      let index = this.namespaceBindings.get(ns);
      if (index === undefined) this.namespaceBindings.set(ns, (index = new SubjectIndex()));
      index.add(i, b, ns);
    });
  }

  clusterRoleBindingsFor(user: UserInfo): AppliedBinding<ClusterRoleBinding>[] {
    return this.clusterBindings.appliesTo(user, '');
  }

  roleBindingsFor(user: UserInfo, namespace: string): AppliedBinding<RoleBinding>[] {
    return this.namespaceBindings.get(namespace)?.appliesTo(user, namespace) ?? [];
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }

  role(namespace: string, name: string): Role | undefined {
    return this.roles.get(`${namespace}/${name}`);
  }

  /**
   * The rules a binding's roleRef grants, or upstream's error when the role
   * does not exist: a RoleBinding may refer to a Role of its namespace or a
   * ClusterRole; a ClusterRoleBinding only to a ClusterRole.
   */
  roleRefRules(roleRef: { kind: string; name: string }, bindingNamespace: string): { rules: readonly PolicyRule[] } | { error: string } {
    if (roleRef.kind === 'ClusterRole') {
      const role = this.clusterRole(roleRef.name);
      return role === undefined ? { error: `clusterrole.rbac.authorization.k8s.io "${roleRef.name}" not found` } : { rules: role.rules ?? [] };
    }
    if (roleRef.kind === 'Role' && bindingNamespace !== '') {
      const role = this.role(bindingNamespace, roleRef.name);
      return role === undefined ? { error: `role.rbac.authorization.k8s.io "${roleRef.name}" not found` } : { rules: role.rules ?? [] };
    }
    return { error: `unsupported role reference kind: "${roleRef.kind}"` };
  }
}

export const EMPTY_POLICY = new PolicyIndex({ clusterRoles: [], clusterRoleBindings: [], roles: [], roleBindings: [] });
