/**
 * The simple authorizers: AlwaysAllow, AlwaysDeny, and the privileged-group
 * authorizer upstream puts first whenever the mode is not AlwaysAllow
 * (system:masters may do everything, whatever RBAC says).
 */
import type { UserInfo } from '../../server/context.js';
import type { AuthorizationResult, Authorizer, NonResourceRule, ResourceRule, RuleResolver } from './interface.js';

export type RuleSet = Awaited<ReturnType<RuleResolver['rulesFor']>>;

const ALL_RESOURCES: ResourceRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] };
const ALL_PATHS: NonResourceRule = { verbs: ['*'], nonResourceURLs: ['*'] };
const everything = (): RuleSet => ({ resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_PATHS], incomplete: false });
const nothing = (): RuleSet => ({ resourceRules: [], nonResourceRules: [], incomplete: false });

export type RuleResolvingAuthorizer = Authorizer & RuleResolver;

export const alwaysAllow: RuleResolvingAuthorizer = {
  authorize: (): AuthorizationResult => ({ decision: 'Allow', reason: '' }),
  rulesFor: async () => everything(),
};

/** Upstream's AlwaysDeny gives no opinion (so a later authorizer could still allow) and says why. */
export const alwaysDeny: RuleResolvingAuthorizer = {
  authorize: (): AuthorizationResult => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: async () => nothing(),
};

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

export function newPrivilegedGroups(...groups: string[]): RuleResolvingAuthorizer {
  const privileged = (user: UserInfo): boolean => user.groups.some((g) => groups.includes(g));
  return {
    authorize: (a): AuthorizationResult => (privileged(a.user) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' }),
    rulesFor: async (user) => (privileged(user) ? everything() : nothing()),
  };
}
