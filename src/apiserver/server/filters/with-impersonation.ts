/**
 * Impersonation, as upstream's WithImpersonation: a request with
 * Impersonate-User (and optionally Impersonate-Group, Impersonate-Uid,
 * Impersonate-Extra-KEY) runs as that user once the authorizer allows the
 * real user the `impersonate` verb on each part: users (or serviceaccounts
 * for system:serviceaccount:NS:NAME), groups, uids and userextras/KEY.
 */
import { forbiddenError } from '../../auth/authorizers/forbidden.js';
import type { Attributes, Authorizer } from '../../auth/authorizers/interface.js';
import { internalError, StatusError } from '../../../machinery/status.js';
import type { Filter, Handler, HttpRequest, RequestContext, UserInfo } from '../context.js';
import { ANONYMOUS } from '../../auth/authenticators/anonymous.js';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA = 'impersonate-extra-';
const SA_PREFIX = 'system:serviceaccount:';

export interface ImpersonationRequest {
  readonly user?: string;
  readonly groups: string[];
  readonly uid?: string;
  readonly extra: Record<string, string[]>;
}

/** The impersonation headers of a request (every value of repeated ones), or undefined when it has none. */
export function readImpersonation(req: Pick<HttpRequest, 'rawHeaders'>): ImpersonationRequest | undefined {
  let user: string | undefined;
  let uid: string | undefined;
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let any = false;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const rawName = raw[i]!;
    // Every impersonation header starts with "i" or "I": others are passed over without lower-casing them.
    if ((rawName.charCodeAt(0) | 0x20) !== 0x69) continue;
    const name = rawName.toLowerCase();
    const value = raw[i + 1]!;
    if (name === USER) user = value;
    else if (name === GROUP) groups.push(value);
    else if (name === UID) uid = value;
    else if (name.startsWith(EXTRA)) {
      const key = unescapeKey(name.slice(EXTRA.length));
      (extra[key] ??= []).push(value);
    } else continue;
    any = true;
  }
  if (!any) return undefined;
  return { ...(user !== undefined ? { user } : {}), groups, ...(uid !== undefined ? { uid } : {}), extra };
}

function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key).toLowerCase();
  } catch {
    return key;
  }
}

/** The authorization checks an impersonation needs, as upstream orders them: user, groups, extras, uid. */
export function impersonationChecks(requestor: UserInfo, request: ImpersonationRequest): Attributes[] {
  const base = { user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', apiVersion: '', subresource: '' };
  const checks: Attributes[] = [];
  const username = request.user ?? '';
  if (username.startsWith(SA_PREFIX) && username.slice(SA_PREFIX.length).split(':').length === 2) {
    const [namespace, name] = username.slice(SA_PREFIX.length).split(':') as [string, string];
    checks.push({ ...base, namespace, apiGroup: '', resource: 'serviceaccounts', name });
  } else {
    checks.push({ ...base, namespace: '', apiGroup: '', resource: 'users', name: username });
  }
  for (const group of request.groups) checks.push({ ...base, namespace: '', apiGroup: '', resource: 'groups', name: group });
  for (const [key, values] of Object.entries(request.extra)) {
    for (const value of values) checks.push({ ...base, namespace: '', apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: value });
  }
  if (request.uid !== undefined) checks.push({ ...base, namespace: '', apiGroup: 'authentication.k8s.io', resource: 'uids', name: request.uid });
  return checks;
}

/** The user a request runs as once its impersonation is allowed. */
export function impersonatedUser(request: ImpersonationRequest & { user: string }): UserInfo {
  const groups = [...request.groups];
  const username = request.user;
  if (username.startsWith(SA_PREFIX)) {
    const parts = username.slice(SA_PREFIX.length).split(':');
    if (parts.length === 2) groups.push('system:serviceaccounts', `system:serviceaccounts:${parts[0]}`);
  }
  if (username === ANONYMOUS.name) {
    if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  } else if (!groups.includes('system:authenticated')) {
    groups.push('system:authenticated');
  }
  return {
    name: username,
    groups,
    ...(request.uid !== undefined ? { uid: request.uid } : {}),
    ...(Object.keys(request.extra).length > 0 ? { extra: request.extra } : {}),
  };
}

export function withImpersonation(authorizer: Authorizer | undefined): Filter {
  return (next) => {
    const impersonate = impersonating(authorizer, next);
    // Most requests impersonate nobody: they go on at once, without an async step of their own.
    return (ctx) => {
      let request: ImpersonationRequest | undefined;
      try {
        request = readImpersonation(ctx.req);
        if (request === undefined) return next(ctx);
      } catch (e: unknown) {
        return Promise.reject(e);
      }
      return impersonate(ctx, request);
    };
  };
}

/** The rest of the filter, for a request with impersonation headers. */
function impersonating(authorizer: Authorizer | undefined, next: Handler): (ctx: RequestContext, request: ImpersonationRequest) => Promise<void> {
  return async (ctx, request) => {
    if (request.user === undefined || request.user === '') {
      throw internalError(new StatusError({ code: 500, reason: 'InternalError', message: 'requested impersonation without impersonating a user' }));
    }
    const requestor = ctx.user ?? ANONYMOUS;
    if (authorizer !== undefined) {
      for (const check of impersonationChecks(requestor, request)) {
        const result = await authorizer.authorize(check);
        if (result.decision !== 'Allow') throw forbiddenError(check, result.reason);
      }
    }
    ctx.user = impersonatedUser({ ...request, user: request.user });
    await next(ctx);
  };
}
