/**
 * Anonymous requests (--anonymous-auth, on by default as upstream): a request
 * that carries no credential any authenticator recognizes is
 * system:anonymous in the group system:unauthenticated. What it may then do
 * is the authorizer's decision. A request with a bad credential is not
 * anonymous: it is refused (401), as upstream's fail-on-error union does.
 */
import type { UserInfo } from '../../server/context.js';

export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const AUTHENTICATED_GROUP = 'system:authenticated';

export const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };

/** The paths anonymous requests reach when no authorizer decides for them (upstream's system:public-info-viewer paths). */
export function isPublicInfoPath(path: string): boolean {
  return (
    path === '/healthz' ||
    path === '/livez' ||
    path === '/readyz' ||
    path === '/version' ||
    path === '/version/' ||
    path.startsWith('/healthz/') ||
    path.startsWith('/livez/') ||
    path.startsWith('/readyz/')
  );
}

/** Upstream's authenticated group adder: every authenticated user but the anonymous one is in system:authenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER || user.groups.includes(AUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
