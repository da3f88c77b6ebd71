/**
 * Escalation prevention, as upstream's rbac registry (policybased storage):
 * a user may create or change a Role or ClusterRole only with rules they
 * already hold (or the `escalate` verb on it), and bind a role only when they
 * hold its rules (or the `bind` verb on it). system:masters bypasses both.
 */
import type { PolicyRule, RoleRef } from 'kubernetes-types/rbac/v1.js';
import { forbidden, notFound, type GroupResource } from '../../../../machinery/status.js';
import type { UserInfo } from '../../../server/context.js';
import { SYSTEM_PRIVILEGED_GROUP } from '../always.js';
import type { Authorizer } from '../interface.js';
import { aggregate } from '../union.js';
import { compactRules, compactString, covers, goQuotedList } from './covers.js';
import { rulesFor, type PolicySource } from './rbac-authorizer.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export interface EscalationCheckOptions {
  readonly authorizer: Authorizer;
  readonly policy: PolicySource;
  /**
   * Reads a role from storage when the policy index has not seen it yet (a
   * role created a moment before its binding): undefined when it does not exist.
   */
  readonly readRoleRules?: (roleRef: RoleRef, namespace: string) => Promise<readonly PolicyRule[] | undefined>;
}

export class EscalationGuard {
  private options: EscalationCheckOptions | undefined;

  /** Bind the authorizer and the RBAC policy once they exist (the stores are built before them). */
  bind(options: EscalationCheckOptions): void {
    this.options = options;
  }

  /** Whether the user may write these rules into a role or cluster role without holding them. */
  private async mayEscalate(user: UserInfo, resource: 'roles' | 'clusterroles', namespace: string, name: string): Promise<boolean> {
    if (user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return true;
    const result = await this.options!.authorizer.authorize({
      user, verb: 'escalate', isResourceRequest: true, path: '', namespace, apiGroup: RBAC_GROUP, apiVersion: '', resource, subresource: '', name,
    });
    return result.decision === 'Allow';
  }

  /** The message of an escalation, or undefined when the user holds every rule. */
  private missing(user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
    const held = rulesFor(this.options!.policy.current(), user, namespace);
    const result = covers(held.rules, rules);
    if (result.covered) return undefined;
    const described = [...new Set(compactRules(result.missing).map(compactString))].sort();
    let message = `user "${user.name}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${described.join('\n')}`;
    if (held.errors.length > 0) message += `; resolution errors: [${aggregate(held.errors)}]`;
    return message;
  }

  /** Before a Role (namespace set) or ClusterRole is written by a user. */
  async checkRole(user: UserInfo | undefined, options: { namespace: string; name: string; rules: readonly PolicyRule[]; aggregated?: boolean }): Promise<void> {
    if (this.options === undefined || user === undefined) return;
    const resource = options.namespace === '' ? 'clusterroles' : 'roles';
    if (await this.mayEscalate(user, resource, options.namespace, options.name)) return;
    const gr: GroupResource = { group: RBAC_GROUP, resource };
    const message = this.missing(user, options.namespace, options.rules);
    if (message !== undefined) throw forbidden(gr, options.name, message);
    if (options.aggregated === true && this.missing(user, options.namespace, FULL_AUTHORITY) !== undefined) {
      throw forbidden(gr, options.name, 'must have cluster-admin privileges to use the aggregationRule');
    }
  }

  /** Before a RoleBinding (namespace set) or ClusterRoleBinding is written by a user. */
  async checkBinding(user: UserInfo | undefined, options: { namespace: string; name: string; roleRef: RoleRef }): Promise<void> {
    if (this.options === undefined || user === undefined) return;
    if (user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return;
    const { roleRef, namespace } = options;
    const refResource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
    const bind = await this.options.authorizer.authorize({
      user, verb: 'bind', isResourceRequest: true, path: '', namespace, apiGroup: roleRef.apiGroup, apiVersion: '', resource: refResource, subresource: '', name: roleRef.name,
    });
    if (bind.decision === 'Allow') return;
    const indexed = this.options.policy.current().roleRefRules(roleRef, namespace);
    const rules = 'rules' in indexed ? indexed.rules : await this.options.readRoleRules?.(roleRef, namespace);
    if (rules === undefined) throw notFound({ group: RBAC_GROUP, resource: refResource === '' ? roleRef.kind : refResource }, roleRef.name);
    const message = this.missing(user, namespace, rules);
    if (message !== undefined) throw forbidden({ group: RBAC_GROUP, resource: namespace === '' ? 'clusterrolebindings' : 'rolebindings' }, options.name, message);
  }
}
