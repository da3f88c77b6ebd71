import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { audienceAgnostic } from './audience-agnostic.js';
import type { AuthenticationResult, TokenAuthenticator } from './interface.js';
import { newRequestAuthenticator } from './request-authenticator.js';
import { newTokenFileAuthenticator } from './token-file.js';
import { certificateSocket, fakeRequest } from './testing/fake-request.js';
import { isUnauthorized } from './testing/is-unauthorized.js';

const known: TokenAuthenticator = { authenticateToken: (t) => (t === 'good' ? { user: { name: 'tok', groups: ['g'] } } : undefined) };

describe('request authenticator', () => {
  it('prefers the client certificate and adds system:authenticated', async () => {
    const auth = newRequestAuthenticator({ tokenAuthenticators: [known] });
    const ctx = fakeRequest({ socket: certificateSocket({ CN: 'admin', O: 'system:masters' }), headers: { authorization: 'Bearer good' } });
    const { user } = await auth.authenticate(ctx);
    assert.equal(user.name, 'admin');
    assert.deepEqual(user.groups, ['system:masters', 'system:authenticated']);
  });

  it('authenticates a bearer token', async () => {
    const { user } = await newRequestAuthenticator({ tokenAuthenticators: [known] }).authenticate(fakeRequest({ headers: { authorization: 'Bearer good' } }));
    assert.deepEqual(user, { name: 'tok', groups: ['g', 'system:authenticated'] });
  });

  it('makes a request without credentials anonymous', async () => {
    const { user } = await newRequestAuthenticator({ tokenAuthenticators: [known] }).authenticate(fakeRequest());
    assert.deepEqual(user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('refuses an invalid bearer token even when anonymous is on', async () => {
    const auth = newRequestAuthenticator({ tokenAuthenticators: [known], anonymous: true });
    await assert.rejects(async () => auth.authenticate(fakeRequest({ headers: { authorization: 'Bearer bad' } })), isUnauthorized);
  });

  it('refuses a certificate from another CA even when anonymous is on', async () => {
    const auth = newRequestAuthenticator({ anonymous: true });
    await assert.rejects(async () => auth.authenticate(fakeRequest({ socket: certificateSocket({ CN: 'x' }, { authorized: false }) })), isUnauthorized);
  });

  it('refuses a request without credentials when anonymous is off', async () => {
    await assert.rejects(async () => newRequestAuthenticator({ anonymous: false }).authenticate(fakeRequest()), isUnauthorized);
  });

  it('treats a bearer token as no credential when no token authenticator is configured', async () => {
    const { user } = await newRequestAuthenticator().authenticate(fakeRequest({ headers: { authorization: 'Bearer any' } }));
    assert.equal(user.name, 'system:anonymous');
  });

  it('runs the token authenticators alone for TokenReview, with system:authenticated', async () => {
    const auth = newRequestAuthenticator({ tokenAuthenticators: [known] });
    assert.deepEqual((await auth.tokens.authenticateToken('good'))?.user.groups, ['g', 'system:authenticated']);
    assert.equal(await auth.tokens.authenticateToken('bad'), undefined);
  });

  it('answers client certificates and static tokens synchronously, with one user object per credential', () => {
    const tokenFile = newTokenFileAuthenticator(new Map([['good', { name: 'tok', groups: ['g'] }]]));
    const auth = newRequestAuthenticator({ tokenAuthenticators: [audienceAgnostic(['api'], tokenFile)] });
    const socket = certificateSocket({ CN: 'admin', O: 'system:masters' });
    const first = auth.authenticate(fakeRequest({ socket }));
    assert.ok(!(first instanceof Promise));
    const byToken = auth.authenticate(fakeRequest({ headers: { authorization: 'Bearer good' } }));
    assert.ok(!(byToken instanceof Promise));
    assert.deepEqual(byToken, { user: { name: 'tok', groups: ['g', 'system:authenticated'] }, audiences: ['api'] });
    const again = auth.authenticate(fakeRequest({ headers: { authorization: 'Bearer good' } })) as AuthenticationResult;
    // The user with system:authenticated added is made once per user the token file holds.
    assert.equal(again.user, byToken.user);
    assert.deepEqual(tokenFile.authenticateToken('good'), { user: { name: 'tok', groups: ['g'] } });
    assert.equal((auth.authenticate(fakeRequest({ socket })) as AuthenticationResult).user, (first as AuthenticationResult).user);
  });

  it('answers asynchronously when a token authenticator does, with the same results', async () => {
    const later: TokenAuthenticator = { authenticateToken: async (t) => known.authenticateToken(t) };
    const auth = newRequestAuthenticator({ tokenAuthenticators: [audienceAgnostic(['api'], later)] });
    const pending = auth.authenticate(fakeRequest({ headers: { authorization: 'Bearer good' } }));
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, { user: { name: 'tok', groups: ['g', 'system:authenticated'] }, audiences: ['api'] });
    const bad = fakeRequest({ headers: { authorization: 'Bearer bad' } });
    await assert.rejects(async () => auth.authenticate(bad), isUnauthorized);
    assert.equal(bad.req.headers.authorization, 'Bearer bad');
    await assert.rejects(async () => newRequestAuthenticator({ tokenAuthenticators: [later], anonymous: false }).authenticate(fakeRequest()), isUnauthorized);
  });
});
