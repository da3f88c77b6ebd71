import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Attributes, AuthorizationResult } from '../../auth/authorizers/interface.js';
import { StatusError } from '../../../machinery/status.js';
import type { RequestContext } from '../context.js';
import { impersonatedUser, impersonationChecks, readImpersonation, withImpersonation } from './with-impersonation.js';

const alice = { name: 'alice', groups: ['system:authenticated'] };

function ctxWith(rawHeaders: string[]): RequestContext {
  return { req: { rawHeaders }, user: alice } as unknown as RequestContext;
}

describe('readImpersonation', () => {
  it('reads every value of repeated headers, and unescapes extra keys', () => {
    const r = readImpersonation({ rawHeaders: ['Impersonate-User', 'bob', 'Impersonate-Group', 'a', 'impersonate-group', 'b', 'Impersonate-Extra-Scopes%2Fx', 'v', 'Impersonate-Uid', '42', 'Accept', '*/*'] });
    assert.deepEqual(r, { user: 'bob', groups: ['a', 'b'], uid: '42', extra: { 'scopes/x': ['v'] } });
    assert.equal(readImpersonation({ rawHeaders: ['Accept', '*/*'] }), undefined);
  });
});

describe('impersonationChecks', () => {
  it('checks users, service accounts, groups, extras and uids with the impersonate verb', () => {
    const checks = impersonationChecks(alice, { user: 'system:serviceaccount:ns:sa', groups: ['g'], uid: 'u', extra: { k: ['v'] } });
    assert.deepEqual(
      checks.map((c) => [c.verb, c.apiGroup, c.resource, c.subresource, c.namespace, c.name]),
      [
        ['impersonate', '', 'serviceaccounts', '', 'ns', 'sa'],
        ['impersonate', '', 'groups', '', '', 'g'],
        ['impersonate', 'authentication.k8s.io', 'userextras', 'k', '', 'v'],
        ['impersonate', 'authentication.k8s.io', 'uids', '', '', 'u'],
      ],
    );
  });
});

describe('impersonatedUser', () => {
  it('adds system:authenticated, or system:unauthenticated for anonymous, and service-account groups', () => {
    assert.deepEqual(impersonatedUser({ user: 'bob', groups: ['x'], extra: {} }), { name: 'bob', groups: ['x', 'system:authenticated'] });
    assert.deepEqual(impersonatedUser({ user: 'system:anonymous', groups: [], extra: {} }).groups, ['system:unauthenticated']);
    assert.deepEqual(impersonatedUser({ user: 'system:serviceaccount:ns:sa', groups: [], extra: {} }).groups, ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated']);
  });
});

describe('withImpersonation', () => {
  const only = (allowed: (a: Attributes) => boolean) => ({ authorize: (a: Attributes): AuthorizationResult => ({ decision: allowed(a) ? 'Allow' : 'NoOpinion', reason: '' }) });

  it('runs the request as the impersonated user when allowed', async () => {
    const ctx = ctxWith(['Impersonate-User', 'bob']);
    let seen = '';
    await withImpersonation(only(() => true))(async (c) => void (seen = c.user?.name ?? ''))(ctx);
    assert.equal(seen, 'bob');
  });

  it('refuses with upstream 403 when the impersonate verb is not granted', async () => {
    const ctx = ctxWith(['Impersonate-User', 'bob', 'Impersonate-Group', 'admins']);
    await assert.rejects(withImpersonation(only((a) => a.resource === 'users'))(async () => {})(ctx), (e: unknown) =>
      e instanceof StatusError && e.status.code === 403 && e.status.message === 'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope');
  });

  it('refuses groups without a user', async () => {
    await assert.rejects(withImpersonation(only(() => true))(async () => {})(ctxWith(['Impersonate-Group', 'a'])), (e: unknown) => e instanceof StatusError && e.status.code === 500);
  });

  it('passes requests without impersonation untouched', async () => {
    const ctx = ctxWith([]);
    await withImpersonation(only(() => false))(async (c) => assert.equal(c.user, alice))(ctx);
  });

  it('passes a request without impersonation headers on at once, whatever the case of its other headers', async () => {
    let reached: RequestContext | undefined;
    const filter = withImpersonation({ authorize: () => ({ decision: 'Deny', reason: '' }) })(async (c) => {
      reached = c;
    });
    const ctx = ctxWith(['If-Match', 'x', 'if-none-match', 'y', 'Accept', '*/*', 'i', '1', 'I', '2']);
    const done = filter(ctx);
    assert.equal(reached, ctx);
    assert.equal(ctx.user, alice);
    await done;
  });

  it('reads impersonation headers in any case among others that start with i', () => {
    assert.deepEqual(readImpersonation({ rawHeaders: ['If-Match', 'x', 'IMPERSONATE-USER', 'bob', 'iMpErSoNaTe-GrOuP', 'g', 'impersonate-uid', '7'] }), { user: 'bob', groups: ['g'], uid: '7', extra: {} });
  });
});
