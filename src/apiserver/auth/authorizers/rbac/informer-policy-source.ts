/**
 * The live RBAC policy: one reflector per RBAC resource over the API server's
 * own stores; every change marks the index stale, and the next request
 * rebuilds it, so that an edited Role or a new binding takes effect at once,
 * without a restart. Listeners (the aggregation of ClusterRoles) hear of each
 * change of ClusterRoles.
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { Reflector, type ReflectorChange, type ReflectorStore } from '../../../../client/cache/reflector.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { GenericStore } from '../../../registry/generic/store.js';
import { PolicyIndex } from './policy-index.js';
import type { PolicySource } from './rbac-authorizer.js';
import { newStoreListerWatcher } from './store-lister-watcher.js';

export interface RbacStores {
  readonly clusterRoles: GenericStore;
  readonly clusterRoleBindings: GenericStore;
  readonly roles: GenericStore;
  readonly roleBindings: GenericStore;
}

class ObjectMap implements ReflectorStore<KubeObject> {
  readonly items = new Map<string, KubeObject>();
  constructor(private readonly changed: () => void) {}
  private key(o: KubeObject): string {
    return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  }
  replace(items: readonly KubeObject[]): void {
    this.items.clear();
    for (const o of items) this.items.set(this.key(o), o);
    this.changed();
  }
  apply(change: ReflectorChange<KubeObject>): void {
    if (change.type === 'DELETED') this.items.delete(this.key(change.object));
    else this.items.set(this.key(change.object), change.object);
    this.changed();
  }
  progress(): void {}
  /** In key order, as a list from storage gives them. */
  sorted<T>(): T[] {
    return [...this.items.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o as unknown as T);
  }
}

export interface InformerPolicySource extends PolicySource {
  /** Resolves once every resource has been listed. */
  readonly synced: Promise<void>;
  /** The ClusterRoles as last seen. */
  clusterRoles(): ClusterRole[];
  /** Called after each change of a ClusterRole (and after the first list). */
  onClusterRolesChanged(listener: () => void): void;
  stop(): void;
}

export function newInformerPolicySource(stores: RbacStores, onError?: (message: string, error: unknown) => void): InformerPolicySource {
  let index: PolicyIndex | undefined;
  const stale = (): void => {
    index = undefined;
  };
  const listeners: (() => void)[] = [];
  const clusterRoles = new ObjectMap(() => {
    stale();
    for (const l of listeners) l();
  });
  const clusterRoleBindings = new ObjectMap(stale);
  const roles = new ObjectMap(stale);
  const roleBindings = new ObjectMap(stale);
  const options = (name: string) => ({ name: `rbac ${name}`, ...(onError !== undefined ? { onError } : {}) });
  const reflectors = [
    new Reflector(newStoreListerWatcher(stores.clusterRoles), clusterRoles, options('clusterroles')),
    new Reflector(newStoreListerWatcher(stores.clusterRoleBindings), clusterRoleBindings, options('clusterrolebindings')),
    new Reflector(newStoreListerWatcher(stores.roles), roles, options('roles')),
    new Reflector(newStoreListerWatcher(stores.roleBindings), roleBindings, options('rolebindings')),
  ];
  for (const r of reflectors) r.start();
  return {
    synced: Promise.all(reflectors.map((r) => r.synced)).then(() => {}),
    current() {
      index ??= new PolicyIndex({
        clusterRoles: clusterRoles.sorted<ClusterRole>(),
        clusterRoleBindings: clusterRoleBindings.sorted<ClusterRoleBinding>(),
        roles: roles.sorted<Role>(),
        roleBindings: roleBindings.sorted<RoleBinding>(),
      });
      return index;
    },
    clusterRoles: () => clusterRoles.sorted<ClusterRole>(),
    onClusterRolesChanged: (listener) => void listeners.push(listener),
    stop() {
      for (const r of reflectors) r.stop();
    },
  };
}
