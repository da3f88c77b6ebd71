import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TokenAuthenticator } from './interface.js';
import { newRequestAuthenticator } from './request-authenticator.js';
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
});
