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

/** One rule that applies to a user, and the binding (with the subject that matched) that grants it. */
export interface Grant {
  readonly rule: PolicyRule;
  readonly binding: Binding;
  readonly subject: Subject;
  /** '' for a ClusterRoleBinding, else the RoleBinding's namespace. */
  readonly namespace: string;
  /** How many of `errors` were met before this rule, in visiting order. */
  readonly errorsBefore: number;
}

/** Every rule of a user in a namespace, in upstream's visiting order (ClusterRoleBindings, then the namespace's RoleBindings), and the errors met. */
export interface Grants {
  readonly rules: readonly Grant[];
  readonly errors: readonly string[];
}

/** Resolved grants kept per index (an index never changes); cleared when this many users and namespaces have been seen. */
const MAX_MEMOISED_GRANTS = 4096;

export class PolicyIndex {
  private readonly grants = new Map<string, Grants>();

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

  /**
   * The rules that apply to the user in the namespace ('' for cluster-wide
   * only). Resolved once per user, groups and namespace and kept: with many
   * roles and bindings, a request then only matches its attributes against
   * the user's own rules.
   */
  grantsFor(user: UserInfo, namespace: string): Grants {
    const key = `${namespace}\u0000${user.name}\u0000${user.groups.join('\u0000')}`;
    let grants = this.grants.get(key);
    if (grants === undefined) {
      if (this.grants.size >= MAX_MEMOISED_GRANTS) this.grants.clear();
      grants = this.resolveGrants(user, namespace);
      this.grants.set(key, grants);
    }
    return grants;
  }

  private resolveGrants(user: UserInfo, namespace: string): Grants {
    const rules: Grant[] = [];
    const errors: string[] = [];
    const add = (applied: readonly AppliedBinding[], bindingNamespace: string): void => {
      for (const { binding, subject } of applied) {
        const granted = this.roleRefRules(binding.roleRef, bindingNamespace);
        if ('error' in granted) errors.push(granted.error);
        else for (const rule of granted.rules) rules.push({ rule, binding, subject, namespace: bindingNamespace, errorsBefore: errors.length });
      }
    };
    add(this.clusterRoleBindingsFor(user), '');
    if (namespace !== '') add(this.roleBindingsFor(user, namespace), namespace);
    return { rules, errors };
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
