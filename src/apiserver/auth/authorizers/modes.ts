/**
 * `--authorization-mode`: a comma-separated, ordered list of AlwaysAllow,
 * AlwaysDeny, ABAC, Webhook, RBAC and Node (upstream's names). The modes this
 * server cannot run yet are refused with a clear error rather than ignored.
 */
import { alwaysAllow, alwaysDeny, newPrivilegedGroups, SYSTEM_PRIVILEGED_GROUP, type RuleResolvingAuthorizer } from './always.js';
import { newUnionAuthorizer } from './union.js';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** Parse and validate the flag's value (upstream's messages for unknown and repeated modes). */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes = value.split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
      throw new Error(`authorization-mode "${mode}" is not a valid mode (valid modes: ${AUTHORIZATION_MODES.join(',')})`);
    }
    if (seen.has(mode)) throw new Error(`authorization-mode ${mode} has mode specified more than once`);
    seen.add(mode);
  }
  return modes as AuthorizationMode[];
}

export interface AuthorizerSources {
  /** The RBAC authorizer; required when RBAC is among the modes. */
  readonly rbac?: RuleResolvingAuthorizer;
  /** Authorizers other engineers add (Node, Webhook), by mode. */
  readonly others?: Partial<Record<AuthorizationMode, RuleResolvingAuthorizer>>;
}

/** The union authorizer of the modes, in their order; system:masters first unless AlwaysAllow is the only mode. */
export function newAuthorizer(modes: readonly AuthorizationMode[], sources: AuthorizerSources = {}): RuleResolvingAuthorizer {
  const members: RuleResolvingAuthorizer[] = [];
  if (!(modes.length === 1 && modes[0] === 'AlwaysAllow')) members.push(newPrivilegedGroups(SYSTEM_PRIVILEGED_GROUP));
  for (const mode of modes) {
    switch (mode) {
      case 'AlwaysAllow':
        members.push(alwaysAllow);
        break;
      case 'AlwaysDeny':
        members.push(alwaysDeny);
        break;
      case 'RBAC':
        if (sources.rbac === undefined) throw new Error('authorization-mode RBAC needs the RBAC authorizer');
        members.push(sources.rbac);
        break;
      default: {
        const other = sources.others?.[mode];
        if (other === undefined) throw new Error(`authorization-mode ${mode} is not supported by this server yet`);
        members.push(other);
      }
    }
  }
  return newUnionAuthorizer(members);
}
