/**
 * Everything authorization needs inside the API server, wired once at start:
 * the bootstrap policy (created or reconciled), the live RBAC policy read from
 * the server's own stores, the aggregation of ClusterRoles, the union
 * authorizer of --authorization-mode, escalation checks in the RBAC stores,
 * and the authorization.k8s.io review handler.
 */
import type { PolicyRule, RoleRef } from 'kubernetes-types/rbac/v1.js';
import { isNotFound } from '../../machinery/status.js';
import { newAuthorizationReviewHandler } from '../registry/authorization/reviews.js';
import type { Registry } from '../registry/registry.js';
import type { Handler } from '../server/context.js';
import type { RuleResolvingAuthorizer } from './authorizers/always.js';
import { newAuthorizer, type AuthorizationMode } from './authorizers/modes.js';
import type { EscalationGuard } from './authorizers/rbac/escalation.js';
import { newNodeAuthorization } from './authorizers/node/node-authorization.js';
import { newInformerPolicySource, type RbacStores } from './authorizers/rbac/informer-policy-source.js';
import { newRbacAuthorizer } from './authorizers/rbac/rbac-authorizer.js';
import { newWebhookAuthorizerFromFlags, type WebhookAuthorizerFlags } from './authorizers/webhook/webhook-authorizer.js';
import { newClusterRoleAggregator } from './bootstrap-policy/aggregation.js';
import { ensureBootstrapPolicy } from './bootstrap-policy/reconcile.js';

export interface AuthorizationPipelineOptions {
  readonly registry: Registry;
  readonly escalation: EscalationGuard;
  readonly modes: readonly AuthorizationMode[];
  /** The --authorization-webhook-* flags, for mode Webhook. */
  readonly webhook?: WebhookAuthorizerFlags;
  readonly onError?: (message: string, error: unknown) => void;
}

export interface AuthorizationPipeline {
  readonly authorizer: RuleResolvingAuthorizer;
  readonly reviews: Handler;
  stop(): void;
}

export async function newAuthorizationPipeline(options: AuthorizationPipelineOptions): Promise<AuthorizationPipeline> {
  // Built first: a bad webhook configuration stops the start before anything else is done.
  const webhook = options.modes.includes('Webhook') ? newWebhookAuthorizerFromFlags(options.webhook ?? { configFile: '' }) : undefined;
  const rbacStore = (resource: string) => options.registry.store('rbac.authorization.k8s.io', 'v1', resource);
  const stores: RbacStores = {
    clusterRoles: rbacStore('clusterroles'),
    clusterRoleBindings: rbacStore('clusterrolebindings'),
    roles: rbacStore('roles'),
    roleBindings: rbacStore('rolebindings'),
  };
  await ensureBootstrapPolicy(stores);
  const source = newInformerPolicySource(stores, options.onError);
  const aggregator = newClusterRoleAggregator({ store: stores.clusterRoles, clusterRoles: () => source.clusterRoles(), ...(options.onError !== undefined ? { onError: options.onError } : {}) });
  source.onClusterRolesChanged(() => aggregator.sync());
  await source.synced;
  await aggregator.idle();
  const rbac = newRbacAuthorizer(source);
  // Node: a graph of pods and what they name, fed by watches of the server's own stores.
  const node = options.modes.includes('Node')
    ? newNodeAuthorization((group, version, resource) => options.registry.lookup(group, version, resource)?.store, options.onError, options.registry.storageSource('', 'v1', 'pods'))
    : undefined;
  await node?.synced;
  const others = { ...(webhook !== undefined ? { Webhook: webhook } : {}), ...(node !== undefined ? { Node: node.authorizer } : {}) };
  const authorizer = newAuthorizer(options.modes, { rbac, others });
  const readRoleRules = async (roleRef: RoleRef, namespace: string): Promise<readonly PolicyRule[] | undefined> => {
    try {
      const role = roleRef.kind === 'ClusterRole' ? await stores.clusterRoles.get(undefined, roleRef.name) : await stores.roles.get(namespace, roleRef.name);
      return (role.rules as PolicyRule[] | undefined) ?? [];
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  options.escalation.bind({ authorizer, policy: source, readRoleRules });
  const stop = (): void => {
    source.stop();
    node?.stop();
    webhook?.close();
  };
  return { authorizer, reviews: newAuthorizationReviewHandler({ authorizer }), stop };
}
